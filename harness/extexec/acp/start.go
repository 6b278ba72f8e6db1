package acp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"exo/harness"
	"exo/harness/extexec"
	"exo/harness/extexec/codex"
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
	// images says the agent takes image content in prompts (promptCapabilities.image).
	images bool
	// history is the conversation so far as text, sent with the first prompt of a new session.
	history string
	tools   *toolCalls
	terms   *terminals
	// pb tells a loaded session's playback from the turns' own updates.
	pb *playback

	// mu guards the fields below: the running turn, which session updates are recorded into
	// (none between turns, nor while session/load replays the agent's history), and the records
	// waiting to be written (pending, until the session's first turn once opened is set).
	mu      sync.Mutex
	turn    *extexec.Turn
	turnCtx context.Context
	pending []harness.Record
	opened  bool
	// curMode is the mode the agent runs in, modes those it offers.
	curMode sdk.SessionModeId
	modes   *sdk.SessionModeState
	// commands are the commands the agent last listed; usage its last account of usage.
	commands []harness.AgentCommand
	usage    *harness.AgentUsage
	// fileDone is closed once the saved session file's last change is made (see fileOp).
	fileDone chan struct{}
}

// Start launches the agent for a session whose conversation so far is history, and opens an ACP
// session (loading the agent's own when it still matches the log) with exo's tools as an MCP
// server. The agent acts itself, so it runs under exo's confinement helper (AgentSandbox), and is
// refused where that is incomplete unless the user allowed it.
func (a *agent) Start(ss *extexec.Session, s *harness.Session, spec harness.ModelSpec, history []provider.Message) (extexec.Proc, error) {
	ss.Endpoint.ServeMCP(ss.Tools.Server("exo"))
	if err := a.codexConfig(ss, spec); err != nil {
		return nil, err
	}
	if err := geminiSettings(ss); err != nil {
		return nil, err
	}
	c := extexec.Confinement{ActsItself: true, AllowUnconfined: a.opts.AllowUnconfined, Nested: true}
	box := extexec.AgentSandbox(a.h, s, ss.Dirs, c)
	if a.opts.cpuWeight != 0 {
		box.Limits.CPUWeight = a.opts.cpuWeight
	}
	p, err := extexec.Start(extexec.Spec{Path: a.bin, Args: a.opts.Command[1:], Dir: s.Workspace, StderrLog: ss.Dirs.Stderr, Redact: a.h.RedactStream(),
		Env: a.env(ss, spec), Confine: box, Caps: a.h.Capabilities(), Confinement: c})
	if err != nil {
		return nil, err
	}
	pr := &proc{a: a, ss: ss, s: s, p: p, tools: newToolCalls(), terms: newTerminals(), pb: newPlayback()}
	pr.conn = sdk.NewClientSideConnection(&client{pr: pr}, p.Writer(), p.Reader())
	pr.conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := pr.open(history); err != nil {
		p.Stop(time.Second)
		return nil, err
	}
	return pr, nil
}

// codexConfig writes CODEX_HOME/config.toml with exo's endpoint as the only model provider (the
// token in OPENAI_API_KEY), for agents that run Codex (codex-acp runs codex app-server, which
// without it asks for a login); other agents never read it.
func (a *agent) codexConfig(ss *extexec.Session, spec harness.ModelSpec) error {
	conf := codex.Config(ss.Endpoint.URL()+"/v1", spec.ModelID, "OPENAI_API_KEY", true)
	if err := ss.Dirs.WriteFile(filepath.Join(filepath.Base(ss.Dirs.Config), "codex", "config.toml"), []byte(conf)); err != nil {
		return fmt.Errorf("acp: codex config: %w", err)
	}
	return nil
}

// env points the agent at exo's endpoint in the variables agents read (Anthropic's, OpenAI's and
// the Gemini CLI's)
// and gives it its own folders; nothing else of exo's environment passes (not IS_SANDBOX, which
// makes claude-agent-acp ask for a mode that claude refuses as root).
func (a *agent) env(ss *extexec.Session, spec harness.ModelSpec) map[string]string {
	d, ep := ss.Dirs, ss.Endpoint
	env := map[string]string{
		"HOME": d.Home, "TMPDIR": d.Tmp, "XDG_CONFIG_HOME": d.Config, "XDG_CACHE_HOME": d.Home + "/.cache",
		"CLAUDE_CONFIG_DIR": d.Config + "/claude", "CLAUDE_CODE_TMPDIR": d.Tmp, "CODEX_HOME": filepath.Join(d.Config, "codex"),
		"ANTHROPIC_BASE_URL": ep.URL(), "ANTHROPIC_API_KEY": ep.Token(), "ANTHROPIC_MODEL": spec.ModelID,
		"ANTHROPIC_SMALL_FAST_MODEL": spec.ModelID, "ANTHROPIC_DEFAULT_HAIKU_MODEL": spec.ModelID,
		"OPENAI_BASE_URL": ep.URL() + "/v1", "OPENAI_API_KEY": ep.Token(),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
		"DISABLE_ERROR_REPORTING": "1", "CLAUDE_CODE_MAX_RETRIES": "2", "NO_BROWSER": "1",
		// The Gemini CLI: the Gemini API at exo's endpoint (its SDK adds /v1beta), the token as
		// its API key (sent as x-goog-api-key), the registered model.
		"GOOGLE_GEMINI_BASE_URL": ep.URL(), "GEMINI_API_KEY": ep.Token(), "GEMINI_MODEL": spec.ModelID,
	}
	for k, v := range a.opts.Env {
		env[k] = v
	}
	return env
}

// sessionMeta is what exo asks of an agent's session beyond ACP: claude-agent-acp loads no
// Claude settings file (it loads the user's, the project's and the local ones unless its client
// says otherwise), since a repository's .claude/settings.json, or one the agent left in its own
// config folder, would run hook commands on every prompt that exo never records nor puts to its
// policy. Other agents ignore what they do not know of _meta.
func sessionMeta() map[string]any {
	return map[string]any{"claudeCode": map[string]any{"options": map[string]any{"settingSources": []string{}}}}
}

// open runs initialize, then session/load (when the agent offers it and its saved session
// still matches the log) or session/new, and asks for the mode in which the agent asks exo.
func (pr *proc) open(history []provider.Message) error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	init, err := pr.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: pr.a.fsCapabilities(), Terminal: true},
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
	pr.images = init.AgentCapabilities.PromptCapabilities.Image
	ep := pr.ss.Endpoint
	mcp := []sdk.McpServer{{Http: &sdk.McpServerHttpInline{Type: "http", Name: "exo", Url: ep.URL() + extexec.MCPPath,
		Headers: []sdk.HttpHeader{{Name: "Authorization", Value: "Bearer " + ep.Token()}}}}}
	var modes *sdk.SessionModeState
	if sv, since, ok := pr.savedSession(history); ok {
		pr.pb.load(sv.Marks) // the playback may come before the load's answer
		res, err := pr.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: sdk.SessionId(sv.Session), Cwd: pr.s.Workspace, McpServers: mcp, Meta: sessionMeta()})
		if err == nil {
			pr.session, pr.loaded, modes = sdk.SessionId(sv.Session), true, res.Modes
			pr.history = sinceText(since)
		} else {
			pr.pb.load(nil)
		}
		pr.queue(harness.MustRecord(harness.TypeAgentSession, harness.ActorHarness, loadRecord(pr.a.name, sv.Session, len(since), err)))
	}
	if !pr.loaded {
		res, err := pr.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: pr.s.Workspace, McpServers: mcp, Meta: sessionMeta()})
		if err != nil {
			return pr.startErr("session/new", err)
		}
		if res.SessionId == "" {
			return fmt.Errorf("acp session/new: the agent gave no session id")
		}
		pr.session, modes, pr.history = res.SessionId, res.Modes, historyText(history)
	}
	return pr.setMode(ctx, modes)
}

// startErr adds the agent's error output to a start-up failure.
func (pr *proc) startErr(step string, err error) error {
	if tail := strings.TrimSpace(pr.p.LastWords(2 * time.Second)); tail != "" {
		lines := strings.Split(tail, "\n")
		return fmt.Errorf("acp %s: %w (stderr: %s)", step, err, lines[len(lines)-1])
	}
	return fmt.Errorf("acp %s: %w", step, err)
}

// Alive reports whether the agent still runs.
func (pr *proc) Alive() bool { return !pr.p.Exited() }

// Enforcement is the confinement the agent runs under (it runs its own tools, each use asked of
// exo; an agent that sandboxes its commands itself nests its sandbox in exo's).
func (pr *proc) Enforcement() *sandbox.Enforcement { return pr.p.Enforcement() }

// Stop kills the agent's terminals and ends it (its session was saved after its last turn).
func (pr *proc) Stop() error {
	pr.terms.killAll(pr)
	pr.p.Stop(3 * time.Second)
	pr.fileOpsDone()
	return nil
}

// Pid is the agent's process id.
func (pr *proc) Pid() int { return pr.p.Pid() }
