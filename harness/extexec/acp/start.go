package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"exo/harness"
	"exo/harness/extexec"
	"exo/harness/provider"
	"exo/sandbox"
)

// startTimeout bounds the agent's start-up requests (adapters take seconds to spawn their agent).
const startTimeout = 2 * time.Minute

// proc is one ACP agent process serving one exo session.
type proc struct {
	a       *agent
	ss      *extexec.Session
	s       *harness.Session
	p       *extexec.Process
	conn    *sdk.ClientSideConnection
	session sdk.SessionId
	// canLoad says the agent offers session/load; loaded that this process resumed a session.
	canLoad, loaded bool
	// history is the conversation so far as text, sent with the first prompt of a new session.
	history string
	tools   *toolCalls
	terms   *terminals

	// mu guards the running turn, which session updates are recorded into (none between turns,
	// nor while session/load replays the agent's history).
	mu      sync.Mutex
	turn    *extexec.Turn
	turnCtx context.Context
}

// Start launches the agent for a session whose conversation so far is history, and opens an ACP
// session (loading the agent's own when it still matches the log) with exo's tools as an MCP
// server. The agent acts itself, so it runs under exo's confinement helper (AgentSandbox), and is
// refused where that is incomplete unless the user allowed it.
func (a *agent) Start(ss *extexec.Session, s *harness.Session, spec harness.ModelSpec, history []provider.Message) (extexec.Proc, error) {
	ss.Endpoint.ServeMCP(ss.Tools.Server("exo"))
	c := extexec.Confinement{ActsItself: true, AllowUnconfined: a.opts.AllowUnconfined, Nested: true}
	p, err := extexec.Start(extexec.Spec{Path: a.bin, Args: a.opts.Command[1:], Dir: s.Workspace, StderrLog: ss.Dirs.Stderr,
		Env: a.env(ss, spec), Confine: extexec.AgentSandbox(a.h, s, ss.Dirs, c), Caps: a.h.Capabilities(), Confinement: c})
	if err != nil {
		return nil, err
	}
	pr := &proc{a: a, ss: ss, s: s, p: p, tools: newToolCalls(), terms: newTerminals()}
	pr.conn = sdk.NewClientSideConnection(&client{pr: pr}, lineWriter{p}, &lineReader{lines: p.Lines()})
	pr.conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := pr.open(history); err != nil {
		p.Stop(time.Second)
		return nil, err
	}
	return pr, nil
}

// env points the agent at exo's endpoint in the variables agents read (Anthropic's and OpenAI's)
// and gives it its own folders; nothing else of exo's environment passes (not IS_SANDBOX, which
// makes claude-agent-acp ask for a mode that claude refuses as root).
func (a *agent) env(ss *extexec.Session, spec harness.ModelSpec) map[string]string {
	d, ep := ss.Dirs, ss.Endpoint
	env := map[string]string{
		"HOME": d.Home, "TMPDIR": d.Tmp, "XDG_CONFIG_HOME": d.Config, "XDG_CACHE_HOME": d.Home + "/.cache",
		"CLAUDE_CONFIG_DIR": d.Config + "/claude", "CLAUDE_CODE_TMPDIR": d.Tmp, "CODEX_HOME": d.Config + "/codex",
		"ANTHROPIC_BASE_URL": ep.URL(), "ANTHROPIC_API_KEY": ep.Token(), "ANTHROPIC_MODEL": spec.ModelID,
		"ANTHROPIC_SMALL_FAST_MODEL": spec.ModelID, "ANTHROPIC_DEFAULT_HAIKU_MODEL": spec.ModelID,
		"OPENAI_BASE_URL": ep.URL() + "/v1", "OPENAI_API_KEY": ep.Token(),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
		"DISABLE_ERROR_REPORTING": "1", "CLAUDE_CODE_MAX_RETRIES": "2", "NO_BROWSER": "1",
	}
	for k, v := range a.opts.Env {
		env[k] = v
	}
	return env
}

// open runs initialize, then session/load (when the agent offers it and its saved session
// still matches the log) or session/new, and asks for the mode in which the agent asks exo.
func (pr *proc) open(history []provider.Message) error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	init, err := pr.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true},
		ClientInfo:         &sdk.Implementation{Name: "exo", Title: sdk.Ptr("exo"), Version: "1"}})
	if err != nil {
		return pr.startErr("initialize", err)
	}
	if ai := init.AgentInfo; ai != nil {
		pr.a.mu.Lock()
		pr.a.version = strings.TrimSpace(ai.Name + " " + ai.Version)
		pr.a.mu.Unlock()
	}
	pr.canLoad = init.AgentCapabilities.LoadSession
	ep := pr.ss.Endpoint
	mcp := []sdk.McpServer{{Http: &sdk.McpServerHttpInline{Type: "http", Name: "exo", Url: ep.URL() + extexec.MCPPath,
		Headers: []sdk.HttpHeader{{Name: "Authorization", Value: "Bearer " + ep.Token()}}}}}
	var modes *sdk.SessionModeState
	if saved, ok := pr.savedSession(); ok {
		res, err := pr.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: saved, Cwd: pr.s.Workspace, McpServers: mcp})
		if err == nil {
			pr.session, pr.loaded, modes = saved, true, res.Modes
		}
	}
	if !pr.loaded {
		res, err := pr.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: pr.s.Workspace, McpServers: mcp})
		if err != nil {
			return pr.startErr("session/new", err)
		}
		if res.SessionId == "" {
			return fmt.Errorf("acp session/new: the agent gave no session id")
		}
		pr.session, modes, pr.history = res.SessionId, res.Modes, historyText(history)
	}
	_ = os.Remove(pr.savedPath()) // a process that dies mid-turn must not be resumed from it
	if modes != nil && modes.CurrentModeId != "default" {
		for _, m := range modes.AvailableModes {
			if m.Id == "default" { // the mode in which every tool use is asked (claude-agent-acp starts in auto)
				if _, err := pr.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: pr.session, ModeId: "default"}); err != nil {
					return pr.startErr("session/set_mode", err)
				}
			}
		}
	}
	return nil
}

// saved is what exo keeps of an agent session to load it in a later process: the ACP session
// and the log position (branch and head) its conversation corresponds to.
type saved struct {
	Agent   string `json:"agent"`
	Session string `json:"session"`
	Branch  string `json:"branch"`
	Head    uint64 `json:"head"`
}

func (pr *proc) savedPath() string { return filepath.Join(pr.ss.Dirs.Root, "acp-session.json") }

// savedSession returns the agent session to load: one this agent saved at the log's current
// head on the session's branch (nothing happened since that the agent does not know).
func (pr *proc) savedSession() (sdk.SessionId, bool) {
	if !pr.canLoad {
		return "", false
	}
	b, err := os.ReadFile(pr.savedPath())
	if err != nil {
		return "", false
	}
	var sv saved
	if json.Unmarshal(b, &sv) != nil || sv.Agent != pr.a.name || sv.Session == "" || sv.Branch != pr.s.Branch {
		return "", false
	}
	st, err := pr.a.h.State(pr.s.ID)
	if err != nil || st.Head != sv.Head {
		return "", false
	}
	return sdk.SessionId(sv.Session), true
}

// save notes the agent session for a later process, when the agent can load it and is idle.
func (pr *proc) save() {
	pr.mu.Lock()
	busy := pr.turn != nil
	pr.mu.Unlock()
	if !pr.canLoad || busy || pr.p.Exited() {
		return
	}
	st, err := pr.a.h.State(pr.s.ID)
	if err != nil || pr.ss.Log.Flush() != nil {
		return
	}
	if st, err = pr.a.h.State(pr.s.ID); err != nil {
		return
	}
	b, _ := json.Marshal(saved{Agent: pr.a.name, Session: string(pr.session), Branch: pr.s.Branch, Head: st.Head})
	_ = os.WriteFile(pr.savedPath(), b, 0o600)
}

// startErr adds the agent's error output to a start-up failure.
func (pr *proc) startErr(step string, err error) error {
	if tail := strings.TrimSpace(pr.p.StderrTail()); tail != "" {
		lines := strings.Split(tail, "\n")
		return fmt.Errorf("acp %s: %w (stderr: %s)", step, err, lines[len(lines)-1])
	}
	return fmt.Errorf("acp %s: %w", step, err)
}

// historyText renders the conversation so far for an agent that cannot be given it otherwise.
func historyText(msgs []provider.Message) string {
	if len(msgs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("[The conversation so far in this session, as exo recorded it. Continue from it.]\n")
	for _, m := range msgs {
		switch m.Role {
		case provider.RoleAssistant:
			if m.Text != "" {
				b.WriteString("\nAssistant: " + m.Text + "\n")
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "\nAssistant called %s %s\n", c.Name, c.Arguments)
			}
		case provider.RoleTool:
			fmt.Fprintf(&b, "\nTool result: %s\n", m.Text)
		default:
			b.WriteString("\nUser: " + m.Text + "\n")
		}
	}
	b.WriteString("\n[End of the conversation so far.]\n\n")
	return b.String()
}

// Alive reports whether the agent still runs.
func (pr *proc) Alive() bool { return !pr.p.Exited() }

// Enforcement is the confinement the agent runs under (it runs its own tools, each use asked of
// exo; an agent that sandboxes its commands itself nests its sandbox in exo's).
func (pr *proc) Enforcement() *sandbox.Enforcement { return pr.p.Enforcement() }

// Stop saves the agent session for a later process, kills the agent's terminals and ends it.
func (pr *proc) Stop() error {
	pr.save()
	pr.terms.killAll(pr)
	pr.p.Stop(3 * time.Second)
	return nil
}

// Pid is the agent's process id.
func (pr *proc) Pid() int { return pr.p.Pid() }
