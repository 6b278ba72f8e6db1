// Package acp runs any Agent Client Protocol agent (claude-agent-acp, codex-acp, gemini --acp…)
// as an exo executor: ACP v1 over the agent's stdio with github.com/coder/acp-go-sdk, exo's tools offered as an MCP server over
// HTTP on the session's loopback endpoint, the agent's permission requests answered by exo's
// approval policy and scope, its file and terminal requests served from exo's workspace and
// sandbox, and its model traffic pointed at exo's endpoint (Anthropic and OpenAI base URLs and a
// per-session token) where the agent honours those variables.
package acp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec"
)

// Prefix starts an ACP executor's name: acp:COMMAND [ARGS].
const Prefix = "acp:"

// ClaudeACPVersion is the claude-agent-acp release exo is tested with (npm @agentclientprotocol/claude-agent-acp).
const ClaudeACPVersion = "0.101.0"

// CodexACPVersion is the codex-acp release exo is tested with (npm @agentclientprotocol/codex-acp;
// it bundles Codex 0.166.0).
const CodexACPVersion = "2.6.0"

// Options configure an ACP executor.
type Options struct {
	// Exec are the options of exo's own executor (approvals, scope, hooks, callbacks).
	Exec executor.Options
	// Command is the agent's command line (program and arguments).
	Command []string
	// Env are extra variables for the agent (on top of exo's allow-list and endpoint variables).
	Env map[string]string
	// Mode is the session mode to run the agent in (one of those it offers); empty picks one in
	// which the agent asks exo before it acts.
	Mode string
	// AllowUnconfined runs the agent even where its process cannot be fully confined (the
	// user's explicit consent; what is missing is recorded and shown).
	AllowUnconfined bool
	// cpuWeight, when set, replaces the CPU weight of the agent's sandbox (BenchmarkGeminiTurn
	// measures the weight of 50 agents ran at before against exo's own).
	cpuWeight uint64
}

// Executor runs sessions' turns with an ACP agent, one agent process per session.
type Executor struct {
	*extexec.Runner
	a *agent
}

// agent is an ACP agent as an extexec.Agent.
type agent struct {
	h    *harness.Harness
	x    *executor.Executor
	opts Options
	bin  string
	name string

	mu      sync.Mutex
	version string
}

// Parse splits an executor name "acp:COMMAND ARGS…" into the command line.
func Parse(name string) ([]string, error) {
	rest, ok := strings.CutPrefix(name, Prefix)
	fields := strings.Fields(rest)
	if !ok || len(fields) == 0 {
		return nil, fmt.Errorf("an ACP executor is named acp:COMMAND [ARGS] (e.g. acp:claude-agent-acp), not %q", name)
	}
	return fields, nil
}

// FindCommand resolves an agent's program: a path, or a name on PATH, in the folders of
// $EXO_ACP_PATH (colon-separated; exo's CI puts its pinned adapters there), or claude-agent-acp,
// codex-acp and gemini in exo's CI cache (~/.cache/exo-ci/claude-agent-acp-VERSION,
// codex-acp-VERSION, gemini-cli-VERSION).
func FindCommand(prog string) (string, error) {
	if strings.Contains(prog, "/") {
		if _, err := os.Stat(prog); err != nil {
			return "", fmt.Errorf("ACP agent %s: %w", prog, err)
		}
		return prog, nil
	}
	if p, err := exec.LookPath(prog); err == nil {
		return p, nil
	}
	dirs := filepath.SplitList(os.Getenv("EXO_ACP_PATH"))
	if home, err := os.UserHomeDir(); err == nil {
		switch prog {
		case "claude-agent-acp":
			dirs = append(dirs, filepath.Join(home, ".cache", "exo-ci", "claude-agent-acp-"+ClaudeACPVersion, "node_modules", ".bin"))
		case "codex-acp":
			dirs = append(dirs, filepath.Join(home, ".cache", "exo-ci", "codex-acp-"+CodexACPVersion, "node_modules", ".bin"))
		case "gemini":
			dirs = append(dirs, filepath.Join(home, ".cache", "exo-ci", "gemini-cli-"+GeminiCLIVersion, "node_modules", ".bin"))
		}
	}
	for _, dir := range dirs {
		p := filepath.Join(dir, prog)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("ACP agent %s not found on PATH or $EXO_ACP_PATH", prog)
}

// New returns the executor for an agent command line.
func New(h *harness.Harness, opts Options) (*Executor, error) {
	if len(opts.Command) == 0 {
		return nil, fmt.Errorf("acp: no agent command")
	}
	bin, err := FindCommand(opts.Command[0])
	if err != nil {
		return nil, err
	}
	name := Prefix + strings.Join(opts.Command, " ")
	opts.Command = withACPFlag(opts.Command)
	a := &agent{h: h, opts: opts, bin: bin, name: name}
	r := extexec.NewRunner(h, a, opts.Exec)
	a.x = r.Executor()
	return &Executor{Runner: r, a: a}, nil
}

// Name is "acp:" and the command line.
func (a *agent) Name() string { return a.name }

// Version is the agent's name and version from its initialize answer (once it ran).
func (a *agent) Version() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.version
}

// Binary is the agent's program.
func (a *agent) Binary() string { return a.bin }

// NativeTools is true: ACP agents run their own tools (each use asked of exo).
func (a *agent) NativeTools() bool { return true }
