package executor

import (
	"context"
	"encoding/json"

	"exo/harness"
	"exo/harness/provider"
)

// ToolSource offers tools beyond exo's built-ins, such as MCP servers' tools or skills. The
// executor offers them to the model after the built-ins and runs them with the same approvals,
// events, redaction and snapshots.
type ToolSource interface {
	// Tools lists the tools offered in a session, in a stable order; it may start servers, and
	// it should return quickly once they run.
	Tools(ctx context.Context, sessionID string) []provider.Tool
	// Policy reports whether name is one of this source's tools and its approval policy (auto,
	// ask or deny) for sessions whose own policy does not name the tool.
	Policy(name string) (policy string, ok bool)
	// Call runs one of its tools.
	Call(ctx context.Context, c ExtCall) ExtResult
}

// SystemPrompter is a ToolSource that also adds text to the system prompt (skills list
// themselves there by name and description).
type SystemPrompter interface {
	SystemPrompt(s *harness.Session) string
}

// ExtCall is one call of a ToolSource's tool.
type ExtCall struct {
	Session   string
	Branch    string
	CallID    string
	Workspace string
	Name      string
	Args      json.RawMessage
	// Vet, set by the executor, checks a path the call names before the source runs it (see
	// PathVet); nil checks nothing.
	Vet PathVet
}

// PathVet checks a path a source's tool call names, before the call: exo's own files are never
// reachable (the refusal is recorded as secret.denied); a path the call writes must resolve
// inside the workspace, or beneath one of extra (folders outside the workspace the source may
// write), and inside the workspace obey the rules of exo's own file tools (the session's scope,
// no .git, no hook or MCP configuration). Relative paths are taken from the workspace. It
// returns why the call is refused, or nil.
type PathVet func(path string, write bool, extra []string) error

// ExtResult is a ToolSource tool's result. Text is redacted by the executor before it is
// recorded; a source that stored the full output as an artifact sets Artifact, Truncated and
// TotalBytes and keeps a head and tail in Text.
type ExtResult struct {
	Text       string
	IsError    bool
	Artifact   string
	Truncated  bool
	TotalBytes int64
	// Changed says the tool may have changed workspace files: the harness snapshots the
	// workspace afterwards, which records the changes and checks them against the scope.
	Changed bool
}

// sessionTools lists the tools offered to the model in a session: the built-ins, then each
// source's tools, without those the session's policy denies.
func (x *Executor) sessionTools(ctx context.Context, sessionID string) []provider.Tool {
	out := x.toolSpecs()
	for _, src := range x.opts.ToolSources {
		for _, t := range src.Tools(ctx, sessionID) {
			if _, builtin := x.tools[t.Name]; !builtin && x.policy(sessionID, t.Name) != "deny" {
				out = append(out, t)
			}
		}
	}
	return out
}

// policy is a tool's approval policy: the session's own (Options.Approvals), else the default
// of the source offering it, else auto (ask for a command tool where the sandbox cannot keep
// what it changes undoable).
func (x *Executor) policy(sessionID, name string) string {
	if p, ok := x.sessionPolicy(sessionID, name); ok {
		return p
	}
	if _, builtin := x.tools[name]; !builtin {
		for _, src := range x.opts.ToolSources {
			if p, ok := src.Policy(name); ok {
				return p
			}
		}
	}
	if askUnlessUndoable[name] && !x.sandboxUndoes(sessionID) {
		return "ask"
	}
	return "auto"
}

// sessionPolicy is the session's own approval policy for a tool (Options.Approvals, or its
// project's rules in a daemon), if it names one.
func (x *Executor) sessionPolicy(sessionID, name string) (string, bool) {
	approvals := x.opts.Approvals
	if x.opts.ApprovalsFor != nil {
		approvals = x.opts.ApprovalsFor(sessionID) // a daemon's sessions follow their own project's rules
	}
	p, ok := approvals[name]
	return p, ok
}

// extSource returns the source offering a tool that is not built in.
func (x *Executor) extSource(name string) ToolSource {
	if _, builtin := x.tools[name]; builtin {
		return nil
	}
	for _, src := range x.opts.ToolSources {
		if _, ok := src.Policy(name); ok {
			return src
		}
	}
	return nil
}

// runExt runs a source's tool and converts its result. The arguments are redacted first: an
// MCP server is a program outside the sandbox, and gets no secret value from the model.
func runExt(ctx context.Context, src ToolSource, tc toolCtx, name string, args json.RawMessage) toolOutput {
	args = json.RawMessage(tc.x.h.Redact(string(args)))
	r := src.Call(ctx, ExtCall{Session: tc.session, Branch: tc.branch, CallID: tc.callID, Workspace: tc.ws, Name: name, Args: args,
		Vet: func(path string, write bool, extra []string) error { return tc.vetPath(name, path, write, extra) }})
	return toolOutput{text: r.Text, isError: r.IsError, artifact: r.Artifact, trunc: r.Truncated, total: r.TotalBytes, changed: r.Changed}
}
