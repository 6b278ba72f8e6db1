package conformance

import (
	"context"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec"
)

// Wire is the API an adapter's model speaks, which picks the scripted server and the provider.
type Wire string

// The wires the suite serves.
const (
	// Anthropic is the Messages API (modeltest.Anthropic).
	Anthropic Wire = "anthropic"
	// Responses is OpenAI's Responses API (modeltest.Responses).
	Responses Wire = "responses"
	// Gemini is the Gemini API (modeltest.Gemini).
	Gemini Wire = "gemini"
)

// Tool is a tool as the model calls it: its name, the input field the shell command goes in,
// and fields every call carries besides.
type Tool struct {
	Name, Arg string
	Extra     map[string]any
	// AnyTitle: the agent records its commands under their titles, not the tool's name, so
	// every tool.completed of the turn is one of them.
	AnyTitle bool
}

// Options are what a behaviour asks of the executor it opens.
type Options struct {
	// Exec are exo's executor options (approvals, callbacks).
	Exec executor.Options
	// Native lets the agent use its own tools where that is an option of the adapter.
	Native bool
}

// Executor is an opened executor as the suite drives it.
type Executor struct {
	// Prompt runs one turn of a session.
	Prompt func(ctx context.Context, sessionID, text string) (executor.Result, error)
	// Runner is the external executor's runner (nil for exo's own executor, which runs no agent
	// process).
	Runner *extexec.Runner
	// Close stops the executor (and its agents); the suite calls it when the test ends too.
	Close func()
}

// Adapter describes one executor to the suite.
type Adapter struct {
	// Name names the adapter's subtests ("claude-code", "acp:gemini").
	Name string
	// Wire is what its model speaks.
	Wire Wire
	// Bash is exo's bash as the model calls it (bash, mcp__exo__bash, mcp_exo_bash).
	Bash string
	// Shell is the agent's own shell tool the home probes use (Options.Native set), recorded
	// under that name; for exo's own executor it is exo's bash.
	Shell Tool
	// ReasoningFormat is the format model.completed keeps the model's reasoning in.
	ReasoningFormat string
	// KillGroup kills the agent's whole process group in the kill behaviours (the agent's own
	// children are not in a PID namespace that dies with it).
	KillGroup bool
	// External marks an adapter that runs an agent process (an executor.result ends its turns).
	External bool
	// Find returns the agent's program, or skips the test saying why (fails where CI requires
	// it); nil for exo's own executor.
	Find func(t testing.TB) string
	// Open opens the executor on h with o; program is what Find returned.
	Open func(t testing.TB, h *harness.Harness, program string, o Options) Executor
	// AfterProbes, when set, checks what the adapter's agent leaves after the home probes
	// (where its own commands put their temporary files).
	AfterProbes func(t *testing.T, f *Fixture, x Executor)
	// NotApplicable names the behaviours the adapter genuinely cannot show, each with why.
	NotApplicable map[string]string
	// Failing names the behaviours the adapter does not show yet because of a defect (of exo's
	// or the agent's), each with what the suite found; they are skipped saying so, and are
	// open work, not limitations.
	Failing map[string]string
}

// FromRunner is an external executor, whose agents run under r, as the suite drives it.
func FromRunner(r *extexec.Runner) Executor {
	return Executor{
		Prompt: func(ctx context.Context, sid, text string) (executor.Result, error) {
			return r.Prompt(ctx, sid, text, "test")
		},
		Runner: r,
		Close:  func() { r.Close() },
	}
}
