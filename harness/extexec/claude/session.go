package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"exo/harness"
	"exo/harness/extexec"
	"exo/harness/provider"
	"exo/sandbox"
)

// proc is one claude process serving one exo session.
type proc struct {
	a      *agent
	ss     *extexec.Session
	p      *extexec.Process
	conn   *conn
	mcp    *extexec.MCPServer
	native *nativeCalls
	id     string // Claude's session id
}

// Start launches claude for a session whose conversation so far is history: a transcript of it
// is written for `--resume`, so Claude knows exactly that. Claude runs under exo's confinement
// helper (AgentSandbox) in both modes; with native tools it is refused where that confinement is
// incomplete, unless the user allowed it.
func (a *agent) Start(ss *extexec.Session, s *harness.Session, spec harness.ModelSpec, history []provider.Message) (extexec.Proc, error) {
	pr := &proc{a: a, ss: ss, native: newNativeCalls(), id: newUUID(), mcp: ss.Tools.Server("exo")}
	resume := len(history) > 0
	if resume {
		if err := writeTranscript(ss.Dirs, s.Workspace, pr.id, spec.ModelID, a.versionNumber(), history, a.exoTools(s.ID)); err != nil {
			return nil, err
		}
	}
	c := extexec.Confinement{ActsItself: a.opts.NativeTools, AllowUnconfined: a.opts.AllowUnconfined}
	p, err := extexec.Start(extexec.Spec{Path: a.bin, Args: a.args(s, spec, pr.id, resume), Dir: s.Workspace,
		Env: a.env(ss.Dirs, ss.Endpoint, spec), StderrLog: ss.Dirs.Stderr, Redact: a.h.RedactStream(),
		Confine: extexec.AgentSandbox(a.h, s, ss.Dirs, c), Caps: a.h.Capabilities(), Confinement: c})
	if err != nil {
		return nil, err
	}
	pr.p = p
	pr.conn = newConn(p, handlers{mcp: pr.mcpMessage, spent: ss.Log.AddOverhead, canUse: pr.canUse, hook: pr.hook})
	if err := pr.initialize(); err != nil {
		p.Stop(time.Second)
		return nil, err
	}
	return pr, nil
}

// initialize registers exo's in-band MCP server and exo's PreToolUse hook, and waits for Claude
// to take them: no prompt reaches Claude before every tool use goes through exo.
func (pr *proc) initialize() error {
	wait := pr.a.opts.InitTimeout
	if wait <= 0 {
		wait = defaultInitTimeout
	}
	_, err := pr.conn.request("initialize", map[string]any{"hooks": preToolUseHooks, "sdkMcpServers": []string{"exo"}}, wait)
	if err == nil {
		return nil
	}
	if tail := strings.TrimSpace(pr.p.LastWords(2 * time.Second)); tail != "" {
		lines := strings.Split(tail, "\n")
		err = fmt.Errorf("%w (stderr: %s)", err, lines[len(lines)-1])
	}
	return fmt.Errorf("claude did not take exo's initialize (its tool server and approval hook), so nothing was sent to it: %w", err)
}

// defaultInitTimeout bounds how long Claude may take to answer initialize (it starts in about a
// second; a loaded machine takes longer).
const defaultInitTimeout = 2 * time.Minute

// Alive reports whether claude still runs.
func (pr *proc) Alive() bool { return !pr.p.Exited() }

// Enforcement is the confinement claude runs under.
func (pr *proc) Enforcement() *sandbox.Enforcement { return pr.p.Enforcement() }

// Stop closes claude's input and ends it.
func (pr *proc) Stop() error {
	pr.p.Stop(3 * time.Second)
	pr.mcp.Close()
	return nil
}

// Pid is claude's process id.
func (pr *proc) Pid() int { return pr.p.Pid() }

// mcpMessage hands a message for the in-band MCP server to exo's tool server.
func (pr *proc) mcpMessage(ctx context.Context, server string, msg json.RawMessage) json.RawMessage {
	if server != "exo" {
		return json.RawMessage(`{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"exo serves only the exo MCP server"}}`)
	}
	return pr.mcp.Handle(ctx, msg)
}

// exoTools are the names of exo's tools for a session (as exo knows them).
func (a *agent) exoTools(sessionID string) map[string]bool {
	out := map[string]bool{}
	for _, t := range a.x.HostTools(context.Background(), sessionID) {
		out[t.Name] = true
	}
	return out
}

// versionNumber is the version without the product name ("2.1.330").
func (a *agent) versionNumber() string {
	v, _, _ := strings.Cut(a.version, " ")
	return v
}

// mcpConfig declares exo's tools as an in-band (SDK) MCP server.
const mcpConfig = `{"mcpServers":{"exo":{"type":"sdk","name":"exo"}}}`

// args builds claude's arguments. No settings file loads (--setting-sources ""): not the
// project's, and not the one in Claude's own config folder, which Claude with its own tools can
// write and reloads when it changes (a hook planted there would run unrecorded and unjudged).
func (a *agent) args(s *harness.Session, spec harness.ModelSpec, id string, resume bool) []string {
	args := []string{"-p", "--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
		"--permission-prompt-tool", "stdio", "--include-partial-messages",
		"--mcp-config", mcpConfig, "--strict-mcp-config", "--setting-sources", "",
		"--model", spec.ModelID, "--append-system-prompt", a.systemExtra(s)}
	if !a.opts.NativeTools {
		args = append(args, "--tools", "")
	}
	if resume {
		args = append(args, "--resume", id)
	} else {
		args = append(args, "--session-id", id)
	}
	return append(args, a.opts.ExtraArgs...)
}

// systemExtra tells Claude where it runs, plus the session's governance rules and the
// SessionStart hooks' context.
func (a *agent) systemExtra(s *harness.Session) string {
	var b strings.Builder
	b.WriteString("You are running inside exo, a harness that records every step and can fork and rewind the session.")
	if a.opts.NativeTools {
		b.WriteString(" Each tool use is approved by exo; writes outside the workspace and the session's scope are refused.")
	} else {
		fmt.Fprintf(&b, " Your tools are exo's (the mcp__exo__ tools): bash runs in exo's persistent sandboxed shell in %s, and the file tools work inside that workspace and the session's scope.", s.Workspace)
	}
	if extra := a.opts.Exec.SystemExtra; extra != nil {
		if x := extra(s.ID); x != "" {
			b.WriteString("\n\n" + x)
		}
	}
	if x := a.x.SessionStartContext(context.Background(), s.ID); x != "" {
		b.WriteString("\n\n# Context from SessionStart hooks\n\n" + x)
	}
	return b.String()
}

// env is what claude's environment holds beyond locale and PATH: isolated folders, the loopback
// endpoint and its token, and the traffic switches. Nothing else of exo's environment.
func (a *agent) env(d extexec.Dirs, ep *extexec.Endpoint, spec harness.ModelSpec) map[string]string {
	url, token := "", ""
	if ep != nil {
		url, token = ep.URL(), ep.Token()
	}
	return map[string]string{
		"HOME": d.Home, "CLAUDE_CONFIG_DIR": d.Config, "CLAUDE_CODE_TMPDIR": d.Tmp, "TMPDIR": d.Tmp,
		"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": token,
		"ANTHROPIC_MODEL": spec.ModelID, "ANTHROPIC_SMALL_FAST_MODEL": spec.ModelID, "ANTHROPIC_DEFAULT_HAIKU_MODEL": spec.ModelID,
		"ANTHROPIC_DEFAULT_SONNET_MODEL": spec.ModelID, "ANTHROPIC_DEFAULT_OPUS_MODEL": spec.ModelID,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
		"DISABLE_ERROR_REPORTING": "1", "CLAUDE_CODE_MAX_RETRIES": strconv.Itoa(a.opts.MaxRetries),
	}
}
