package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"exo/harness"
	"exo/harness/extexec"
	"exo/harness/provider"
	"exo/sandbox"
)

// proc is one codex app-server serving one exo session, with one thread.
type proc struct {
	a      *agent
	ss     *extexec.Session
	p      *extexec.Process
	rpc    *extexec.RPC
	thread string
	native *nativeItems
	// besides tracks Codex's notifications beside the conversation (plan, diff, usage, warnings).
	besides *besides
	// lastMessage and lastError are the turn's last answer and the last error Codex reported.
	lastMessage, lastError string
}

// startTimeout bounds codex's start-up requests.
const startTimeout = 2 * time.Minute

// Start launches codex app-server for a session whose conversation so far is history: a new
// thread is started and given that history (thread/inject_items), so Codex knows exactly it.
// Codex runs under exo's confinement helper (AgentSandbox): exo's home hidden, writes confined,
// and /tmp its own temp folder, so even the codex-daemon-UID folder it makes in /tmp stays in
// its state folder under EXO_HOME.
func (a *agent) Start(ss *extexec.Session, s *harness.Session, spec harness.ModelSpec, history []provider.Message) (extexec.Proc, error) {
	if err := ss.Dirs.WriteFile(filepath.Join(filepath.Base(ss.Dirs.Config), "config.toml"), []byte(a.config(ss.Endpoint.URL()+"/v1", spec))); err != nil {
		return nil, fmt.Errorf("codex config: %w", err)
	}
	c := extexec.Confinement{ActsItself: a.opts.NativeTools, AllowUnconfined: a.opts.AllowUnconfined, Nested: true}
	p, err := extexec.Start(extexec.Spec{Path: a.bin, Args: []string{"app-server"}, Dir: s.Workspace, StderrLog: ss.Dirs.Stderr, Redact: a.h.RedactStream(),
		Env:     map[string]string{"HOME": ss.Dirs.Home, "CODEX_HOME": ss.Dirs.Config, "TMPDIR": ss.Dirs.Tmp, tokenEnv: ss.Endpoint.Token(), "NO_BROWSER": "1"},
		Confine: extexec.AgentSandbox(a.h, s, ss.Dirs, c), Caps: a.h.Capabilities(), Confinement: c})
	if err != nil {
		return nil, err
	}
	pr := &proc{a: a, ss: ss, p: p, native: newNativeItems(), besides: &besides{warnings: map[string]bool{}}}
	pr.rpc = extexec.NewRPC(p, extexec.RPCOptions{Handler: pr.request, Agent: "codex", Spent: ss.Log.AddOverhead, Observe: pr.native.observe})
	if err := pr.open(s, history); err != nil {
		p.Stop(time.Second)
		return nil, err
	}
	return pr, nil
}

// open runs the handshake, starts the thread and gives it the history.
func (pr *proc) open(s *harness.Session, history []provider.Message) error {
	ctx := context.Background()
	if _, err := pr.rpc.Call(ctx, "initialize", map[string]any{"clientInfo": map[string]any{"name": "exo", "title": "exo", "version": "1"},
		"capabilities": map[string]any{"experimentalApi": true}}, startTimeout); err != nil {
		return pr.startErr("initialize", err)
	}
	if err := pr.rpc.Notify("initialized", nil); err != nil {
		return err
	}
	raw, err := pr.rpc.Call(ctx, "thread/start", pr.threadParams(s), startTimeout)
	if err != nil {
		return pr.startErr("thread/start", err)
	}
	var started struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	if err := json.Unmarshal(raw, &started); err != nil || started.Thread.ID == "" {
		return fmt.Errorf("codex thread/start: no thread id in %s", raw)
	}
	pr.thread = started.Thread.ID
	if items := historyItems(history); len(items) > 0 {
		if _, err := pr.rpc.Call(ctx, "thread/inject_items", map[string]any{"threadId": pr.thread, "items": items}, startTimeout); err != nil {
			return pr.startErr("thread/inject_items", err)
		}
	}
	return nil
}

// startErr adds codex's error output to a start-up failure.
func (pr *proc) startErr(step string, err error) error {
	if tail := strings.TrimSpace(pr.p.LastWords(2 * time.Second)); tail != "" {
		lines := strings.Split(tail, "\n")
		return fmt.Errorf("codex %s: %w (stderr: %s)", step, err, lines[len(lines)-1])
	}
	return fmt.Errorf("codex %s: %w", step, err)
}

// threadParams are thread/start's parameters: the workspace, approvals that ask exo, Codex's
// sandbox, exo's tools and exo's instructions.
func (pr *proc) threadParams(s *harness.Session) map[string]any {
	var tools []map[string]any
	for _, t := range pr.a.x.HostTools(context.Background(), s.ID) {
		tools = append(tools, map[string]any{"type": "function", "name": t.Name, "description": t.Description, "inputSchema": t.Schema})
	}
	sb := "read-only"
	if pr.a.opts.NativeTools {
		sb = "workspace-write"
	}
	return map[string]any{"cwd": s.Workspace, "approvalPolicy": "untrusted", "sandbox": sb, "dynamicTools": tools,
		"developerInstructions": pr.a.instructions(s)}
}

// instructions tell Codex where it runs, plus the governance rules and SessionStart context.
func (a *agent) instructions(s *harness.Session) string {
	var b strings.Builder
	b.WriteString("You are running inside exo, a harness that records every step and can fork and rewind the session. ")
	if a.opts.NativeTools {
		b.WriteString("Your commands and file changes are approved by exo; changes outside the workspace and the session's scope are refused.")
	} else {
		fmt.Fprintf(&b, "Use exo's tools (bash, read_file, write_file, edit_file, glob, grep, list_dir): bash runs in exo's persistent sandboxed shell in %s.", s.Workspace)
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

// tokenEnv holds the session's endpoint token (codex's env_key).
const tokenEnv = "EXO_MODEL_TOKEN"

// config is CODEX_HOME/config.toml for this executor (Config with its token variable).
func (a *agent) config(baseURL string, spec harness.ModelSpec) string {
	return Config(baseURL, spec.ModelID, tokenEnv, a.opts.NativeTools)
}

// Config is a CODEX_HOME/config.toml that makes exo's endpoint at baseURL (Responses wire) the
// only model provider, its token read from the variable tokenVar, and turns off everything that
// would reach the network or update itself; shell is whether Codex keeps its own shell tool.
// codex-acp, which runs codex app-server, reads it too.
func Config(baseURL, model, tokenVar string, shell bool) string {
	return fmt.Sprintf(`# written by exo for this session
model = %q
model_provider = "exo"
check_for_update_on_startup = false
web_search = "disabled"

[model_providers.exo]
name = "exo"
base_url = %q
env_key = %q
wire_api = "responses"
request_max_retries = 1
stream_max_retries = 1

[sandbox_workspace_write]
exclude_slash_tmp = true
exclude_tmpdir_env_var = true

# Codex's checklist tool: its plan (turn/plan/updated) is recorded and shown by exo
[tools.update_plan]
enabled = true

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false
in_app_updates = false
daemon_auto_start = false
shell_tool = %t
unified_exec = %t
goals = false
`, model, baseURL, tokenVar, shell, shell)
}

// historyItems maps exo's prompt view onto Responses input items; a call without a result gets
// one saying it was interrupted.
func historyItems(msgs []provider.Message) []map[string]any {
	var out []map[string]any
	open := map[string]bool{}
	closeOpen := func() {
		for id := range open {
			out = append(out, map[string]any{"type": "function_call_output", "call_id": id, "output": "[no result: the call was interrupted]"})
		}
		clear(open)
	}
	for _, m := range msgs {
		switch m.Role {
		case provider.RoleAssistant:
			closeOpen()
			if m.Text != "" {
				out = append(out, map[string]any{"type": "message", "role": "assistant", "content": []map[string]any{{"type": "output_text", "text": m.Text}}})
			}
			for _, c := range m.ToolCalls {
				out = append(out, map[string]any{"type": "function_call", "call_id": c.ID, "name": c.Name, "arguments": string(c.Arguments)})
				open[c.ID] = true
			}
		case provider.RoleTool:
			if open[m.ToolCallID] {
				delete(open, m.ToolCallID)
				out = append(out, map[string]any{"type": "function_call_output", "call_id": m.ToolCallID, "output": m.Text})
			}
		default:
			if m.Text != "" {
				closeOpen()
				out = append(out, map[string]any{"type": "message", "role": "user", "content": []map[string]any{{"type": "input_text", "text": m.Text}}})
			}
		}
	}
	closeOpen()
	return out
}

// Alive reports whether codex still runs.
func (pr *proc) Alive() bool { return !pr.p.Exited() }

// Enforcement is the confinement codex runs under (its own sandbox for its commands nests in it).
func (pr *proc) Enforcement() *sandbox.Enforcement { return pr.p.Enforcement() }

// Stop closes codex's input and ends it.
func (pr *proc) Stop() error {
	pr.p.Stop(3 * time.Second)
	return nil
}

// Pid is codex's process id.
func (pr *proc) Pid() int { return pr.p.Pid() }
