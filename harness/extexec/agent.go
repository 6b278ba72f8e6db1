package extexec

import (
	"context"

	"exo/harness"
	"exo/harness/provider"
	"exo/sandbox"
)

// Agent is one kind of external agent (Claude Code, Codex, an ACP agent): how to start it for a
// session. The Runner does everything else the same way for all of them.
type Agent interface {
	// Name is the executor's name (claude-code, codex, acp:COMMAND).
	Name() string
	// Version is the agent's version as it reports it; Binary its program.
	Version() string
	Binary() string
	// NativeTools reports whether the agent uses its own tools (each use approved by exo).
	NativeTools() bool
	// Start launches the agent for a session whose conversation so far is history (exo's prompt
	// view of the branch): the agent must know exactly that and nothing else.
	Start(ss *Session, s *harness.Session, spec harness.ModelSpec, history []provider.Message) (Proc, error)
}

// WireResponses names the OpenAI Responses wire format (the endpoint serves it at /v1/responses
// and the Anthropic Messages API at /v1/messages).
const WireResponses = "responses"

// Proc is an agent process serving one session.
type Proc interface {
	// Turn sends the prompt and turns the agent's messages into events until the turn ends,
	// reporting the end through t (Finish, Died).
	Turn(ctx context.Context, t *Turn, prompt string) error
	// Alive reports whether the process still runs.
	Alive() bool
	// Enforcement is the confinement it runs under (nil: unconfined).
	Enforcement() *sandbox.Enforcement
	// Stop ends the process.
	Stop() error
}
