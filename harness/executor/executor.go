package executor

import (
	"sync"
	"sync/atomic"
	"time"

	"exo/harness"
)

// Options tune the default executor.
type Options struct {
	// Name identifies the executor in event actors (executor:NAME); default "default".
	Name string
	// MaxSteps bounds model calls per turn; default 50.
	MaxSteps int
	// Approvals maps a tool name to auto, ask or deny; tools not listed are auto.
	Approvals map[string]string
	// ApprovalsFor, when set, gives the approval map of a session (its project's constitution);
	// it replaces Approvals.
	ApprovalsFor func(sessionID string) map[string]string
	// AutoApprove answers every "ask" with approve-once (exo run --yes).
	AutoApprove bool
	// Headless means nobody can answer an approval: "ask" fails closed unless AutoApprove.
	Headless bool
	// Approval is the approval mode (config.ApprovalAuto, ApprovalAsk or ApprovalReadOnly):
	// ask makes every tool that can change something ask, read-only refuses them.
	Approval string
	// CheckWrite, when set, vets every path a file tool writes (scope, boundaries).
	CheckWrite func(sessionID, relPath string) error
	// SystemExtra is appended to the system prompt (governance rules, sibling awareness).
	SystemExtra func(sessionID string) string
	// UserInstructions is the user's own instructions file ("" is config.UserInstructionsFile,
	// "-" reads none).
	UserInstructions string
	// OnDelta receives streamed answer text as it arrives (exo run prints it).
	OnDelta func(sessionID, text string)
	// OnTool is told when a tool call starts and ends (exo run prints tool activity).
	OnTool func(sessionID string, started bool, tool, summary string)
	// BeforePrompt runs before a user prompt is appended (governance delivers handoffs here).
	BeforePrompt func(sessionID string) error
	// ApprovalTimeout bounds the wait for an interactive approval; default none.
	ApprovalTimeout time.Duration

	// PruneThreshold is how many tokens of tool results the prompt view may hold before older
	// outputs are pruned; default DefaultPruneThreshold.
	PruneThreshold int
	// OutputReserve is kept free of the context window for the answer; default the model's
	// MaxOutput (at most half the window), else a quarter of the window.
	OutputReserve int
	// NoCompaction turns off the automatic compaction before model calls (Compact still works).
	NoCompaction bool
	// ModelSlots caps concurrent model calls across all sessions of this executor; default 4.
	ModelSlots int
	// MaxDepth bounds subagent nesting (a top-level session is depth 0); default 2.
	MaxDepth int
	// MaxAgents caps running subagents across all sessions; default 8.
	MaxAgents int
	// NarrowScope, when set, gives a subagent a scope no wider than its parent's (governance sets
	// it); without it spawn_agent refuses a requested scope.
	NarrowScope func(parentID, childID string, allow, deny []string) error
	// ToolSources offer tools beyond the built-ins (MCP servers, skills), named so they never
	// clash with a built-in.
	ToolSources []ToolSource
	// Hooks runs the user's hooks (PreToolUse, PostToolUse, UserPromptSubmit, Stop,
	// SessionStart, PreCompact); nil runs none.
	Hooks Hooks
	// Expand turns a prompt "/name args" naming a custom command into the command's prompt and
	// model (empty: the session's); ok is false for anything else, which is sent as typed.
	Expand func(s *harness.Session, text string) (prompt, model string, ok bool)
}

// Executor is the default executor. It is safe for concurrent turns on different sessions.
type Executor struct {
	h    *harness.Harness
	opts Options

	mu    sync.Mutex
	views map[string]*View // prompt views by branch, the maxViews used last (views.go)
	// viewUsed is when each branch's view was last used (a count of uses), for eviction.
	viewUsed map[string]uint64
	viewTick uint64
	// viewSize is each kept view's token estimate when last brought up to date, viewTokens their
	// sum.
	viewSize   map[string]int
	viewTokens int
	// viewLocks serialise bringing each branch's view up to date (viewDo), for the branches
	// being brought up to date.
	viewLocks map[string]*viewLock
	// queueMu serialises taking queued prompts out of the queue (steer, take back): a prompt
	// leaves it once.
	queueMu sync.Mutex
	tools   map[string]tool
	order   []tool
	busy    map[string]bool // sessions with a turn running
	// started holds the SessionStart hooks' context of each session seen in this process.
	started map[string]sessionStarted
	// models holds a model chosen for the running turn of a session (a custom command's).
	models map[string]string
	slots  chan struct{} // the scheduler: one token per concurrent model call
	sub    subagents
	// lastModel is the model time (ns) of the last finished turn, for benchmarks.
	lastModel atomic.Int64
}

// New returns the default executor over a harness.
func New(h *harness.Harness, opts Options) *Executor {
	if opts.Name == "" {
		opts.Name = "default"
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = 50
	}
	if opts.ModelSlots <= 0 {
		opts.ModelSlots = 4
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = 2
	}
	if opts.MaxAgents <= 0 {
		opts.MaxAgents = 8
	}
	x := &Executor{h: h, opts: opts, views: map[string]*View{}, tools: map[string]tool{}, slots: make(chan struct{}, opts.ModelSlots)}
	x.sub.init()
	for _, t := range append(builtinTools(), agentTools()...) {
		x.tools[t.spec.Name] = t
		x.order = append(x.order, t)
	}
	return x
}

// actor is this executor's event actor.
func (x *Executor) actor() string { return harness.ExecutorActor(x.opts.Name) }

// ViewOf returns the prompt view of a branch brought up to its head, applying only the events
// added since the last call (a rewind or fork starts a new branch and a new view).
func (x *Executor) ViewOf(branch, model string) (*View, error) {
	var v *View
	err := x.viewDo(branch, model, func(cur *View) { v = cur })
	return v, err
}

// viewDo brings the prompt view of a branch up to its head and runs f on it, both under the
// branch's view lock: model calls of one session can check its budgets at once (an agent's
// main call and its side calls), and each brings the same view up to date.
func (x *Executor) viewDo(branch, model string, f func(*View)) error {
	x.mu.Lock()
	mu := x.viewLocks[branch]
	if mu == nil {
		if x.viewLocks == nil {
			x.viewLocks = map[string]*viewLock{}
		}
		mu = &viewLock{}
		x.viewLocks[branch] = mu
	}
	mu.users++
	x.mu.Unlock()
	defer func() {
		x.mu.Lock()
		if mu.users--; mu.users == 0 {
			delete(x.viewLocks, branch)
		}
		x.mu.Unlock()
	}()
	mu.Lock()
	defer mu.Unlock()
	v, err := x.catchUp(branch, model)
	if err != nil {
		return err
	}
	f(v)
	return nil
}

// catchUp returns the branch's view with the events added since it was last brought up to
// date applied; the caller holds the branch's view lock.
func (x *Executor) catchUp(branch, model string) (*View, error) {
	x.mu.Lock()
	v := x.views[branch]
	if v == nil || v.model != model {
		v = newView(branch, model)
		x.views[branch] = v
	}
	x.touchView(branch)
	x.mu.Unlock()
	evs, err := x.h.BranchEvents(branch, v.Head+1, 0)
	if err != nil {
		return nil, err
	}
	if len(evs) > 0 && evs[0].Seq != v.Head+1 {
		return v, nil // already current
	}
	for _, e := range evs {
		v.Apply(e)
	}
	if len(evs) > 0 {
		x.sizeView(branch, v)
	}
	return v, nil
}

// ToolNames lists the built-in tools' names, in the order they are offered.
func ToolNames() []string {
	var out []string
	for _, t := range append(builtinTools(), agentTools()...) {
		out = append(out, t.spec.Name)
	}
	return out
}
