package mcpserve

import (
	"context"
	"errors"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"exo/harness"
	"exo/harness/api"
)

// Bounds of run_turn and wait_turn.
const (
	defaultSteps = 25
	maxSteps     = 200
	defaultWait  = 600
	maxWait      = 3600
)

type runIn struct {
	Session  string `json:"session,omitempty" jsonschema:"session to continue: name, id or unique id prefix (default: a new session in workspace)"`
	Prompt   string `json:"prompt" jsonschema:"what to ask the session's agent, as a user would type it"`
	MaxSteps int    `json:"max_steps,omitempty" jsonschema:"most model calls in this turn, 1-200 (default 25); at the limit the turn stops with state step_limit and can be continued with another run_turn"`
	Model    string `json:"model,omitempty" jsonschema:"registered model to switch the session to before the turn (default: the session's)"`
	// Workspace is where a new session works when Session is empty.
	Workspace       string `json:"workspace,omitempty" jsonschema:"absolute project directory for a new session when no session is given (default: exo mcp serve's directory)"`
	WaitSeconds     int    `json:"wait_seconds,omitempty" jsonschema:"how long to wait for the turn's end, 1-3600 (default 600); if it is still running then, state is running and wait_turn picks it up"`
	WaitForApproval bool   `json:"wait_for_approval,omitempty" jsonschema:"when a tool call needs the user's approval and no exo app shows the session, wait for the user to answer in the app instead of refusing the call"`
}

type waitIn struct {
	Session     string `json:"session" jsonschema:"session name, id or unique id prefix"`
	TurnID      string `json:"turn_id,omitempty" jsonschema:"the turn run_turn started (default: the session's running or last turn)"`
	WaitSeconds int    `json:"wait_seconds,omitempty" jsonschema:"how long to wait, 1-3600 (default 600)"`
}

type cancelIn struct {
	Session string `json:"session" jsonschema:"session name, id or unique id prefix"`
}

// turnOut is what run_turn and wait_turn return.
type turnOut struct {
	Session   string `json:"session"`
	SessionID string `json:"session_id"`
	TurnID    string `json:"turn_id,omitempty"`
	// State is done, failed, step_limit, cancelled or running.
	State      string     `json:"state"`
	Response   string     `json:"response,omitempty"`
	Steps      int        `json:"steps,omitempty"`
	ToolCalls  int        `json:"tool_calls,omitempty"`
	CostUSD    float64    `json:"cost_usd,omitempty"`
	DurationMs int64      `json:"duration_ms,omitempty"`
	Failure    string     `json:"failure,omitempty"`
	Approvals  []approval `json:"approvals,omitempty"`
	Next       string     `json:"next,omitempty"`
}

// approval is an approval the turn asked for and how it was answered.
type approval struct {
	Tool     string `json:"tool"`
	Summary  string `json:"summary,omitempty"`
	Decision string `json:"decision"` // once, always, deny, or pending
	By       string `json:"by,omitempty"`
}

// addTurns registers the tools that run the session's agent.
func (t *tools) addTurns(srv *sdk.Server) {
	add(t, srv, &sdk.Tool{Name: "run_turn", Title: "Run a turn of a session's agent",
		Description: "Give a session's agent a prompt and wait for its answer: it works in the session's workspace and sandbox with its tools " +
			"(shell, files, MCP…) for up to max_steps model calls, everything recorded in the session's log. Returns the final answer, " +
			"the state (done, failed, step_limit, cancelled, or running when wait_seconds passed first), steps, cost and the approvals it needed. " +
			"Approvals are the user's: with the exo app showing the session they wait for the user's answer there, otherwise they are refused " +
			"(unless wait_for_approval). Without a session, a new one is created in workspace.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)}}, t.runTurn)
	add(t, srv, &sdk.Tool{Name: "wait_turn", Title: "Wait for a turn",
		Description: "Wait for a session's running turn (or the one named by turn_id) to end and return its result, as run_turn does. " +
			"Use it after run_turn returned state running.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, t.waitTurn)
	add(t, srv, &sdk.Tool{Name: "cancel_turn", Title: "Cancel a turn",
		Description: "Stop the turn running on a session (its end is recorded as cancelled; nothing is undone). No error when none runs.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(false)}}, t.cancelTurn)
}

func (t *tools) runTurn(ctx context.Context, in runIn) (any, error) {
	if strings.TrimSpace(in.Prompt) == "" {
		return nil, errors.New("the prompt is empty")
	}
	steps := in.MaxSteps
	if steps <= 0 {
		steps = defaultSteps
	}
	steps = min(steps, maxSteps)
	s, err := t.turnSession(ctx, in)
	if err != nil {
		return nil, err
	}
	// An approval waits only when someone can answer it in exo's app; the caller never answers.
	headless, err := t.headless(ctx, s.ID, in.WaitForApproval)
	if err != nil {
		return nil, err
	}
	started, err := t.c.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: in.Prompt, Source: "mcp", MaxSteps: steps, Headless: headless})
	if err != nil {
		return nil, err
	}
	return t.wait(ctx, s, started.ID, started.Seq+1, in.WaitSeconds)
}

// turnSession resolves run_turn's session (switching its model when asked), or creates one.
func (t *tools) turnSession(ctx context.Context, in runIn) (*harness.Session, error) {
	if in.Session == "" {
		out, err := t.newSession(ctx, newIn{Workspace: in.Workspace, Model: in.Model})
		if err != nil {
			return nil, err
		}
		return t.c.Session(ctx, out.(sessionBrief).ID)
	}
	s, err := t.session(ctx, in.Session)
	if err != nil || in.Model == "" {
		return s, err
	}
	return t.c.SetSetting(ctx, s.ID, "model", in.Model)
}

func (t *tools) waitTurn(ctx context.Context, in waitIn) (any, error) {
	s, err := t.session(ctx, in.Session)
	if err != nil {
		return nil, err
	}
	return t.wait(ctx, s, in.TurnID, 0, in.WaitSeconds)
}

func (t *tools) cancelTurn(ctx context.Context, in cancelIn) (any, error) {
	s, err := t.session(ctx, in.Session)
	if err != nil {
		return nil, err
	}
	if err := t.c.CancelTurn(ctx, s.ID); err != nil {
		return nil, err
	}
	return "no turn runs on " + s.Name + " now", nil
}

// wait waits up to the given seconds for a turn and reports it; a caller that gives up (the
// request is cancelled) cancels the turn it was waiting for.
func (t *tools) wait(ctx context.Context, s *harness.Session, turnID string, from uint64, seconds int) (turnOut, error) {
	if seconds <= 0 {
		seconds = defaultWait
	}
	wctx, cancel := context.WithTimeout(ctx, time.Duration(min(seconds, maxWait))*time.Second)
	defer cancel()
	res, err := t.c.WaitTurn(wctx, s.ID, turnID)
	out := turnOut{Session: s.Name, SessionID: s.ID, TurnID: turnID}
	bg := context.WithoutCancel(ctx)
	switch {
	case ctx.Err() != nil:
		cctx, stop := context.WithTimeout(bg, 30*time.Second)
		defer stop()
		_ = t.c.CancelTurn(cctx, s.ID)
		return out, errors.New("the request was cancelled, so the turn was cancelled too")
	case wctx.Err() != nil:
		out.State = "running"
		out.Next = "the turn still runs: call wait_turn with this session and turn_id, or cancel_turn"
	case err != nil && errors.Is(err, api.ErrNotFound):
		return out, errors.New("no turn to wait for on " + s.Name + " (none ran since exo's daemon started)")
	case err != nil:
		out.State, out.Failure = "failed", err.Error()
	default:
		fill(&out, res)
	}
	out.Approvals = t.approvals(bg, s, from)
	if refused(out.Approvals) && out.Next == "" {
		out.Next = "tool calls were refused for want of the user's approval: the user can open the session in exo (exo attach " + s.Name + ") and you can run the turn again with wait_for_approval"
	}
	return out, nil
}

// fill copies a turn's result.
func fill(out *turnOut, r harness.TurnResult) {
	out.Response, out.Steps, out.ToolCalls, out.CostUSD, out.DurationMs = r.Response, r.Steps, r.ToolCalls, r.Cost, r.DurationMs
	switch {
	case r.StepLimit:
		out.State = "step_limit"
		out.Next = "the turn stopped at its step limit: run_turn again on this session (e.g. 'continue') to go on"
	case r.Cancelled:
		out.State = "cancelled"
	case r.Failure != "":
		out.State, out.Failure = "failed", r.Failure
	default:
		out.State = "done"
	}
}

// refused reports whether an approval was denied by the harness (nobody could answer).
func refused(as []approval) bool {
	for _, a := range as {
		if a.Decision == "deny" && a.By == harness.ActorHarness {
			return true
		}
	}
	return false
}

// approvalScan bounds how far back wait_turn looks for the turn's approvals.
const approvalScan = 400

// approvals lists the approvals asked since seq from (0: since the session's last prompt).
func (t *tools) approvals(ctx context.Context, s *harness.Session, from uint64) []approval {
	cur, err := t.c.Session(ctx, s.ID)
	if err != nil {
		return nil
	}
	st, err := t.c.State(ctx, cur.Branch)
	if err != nil || st.Head == 0 {
		return nil
	}
	lo := from
	if lo == 0 || lo > st.Head {
		lo = 1
		if st.Head > approvalScan {
			lo = st.Head - approvalScan + 1
		}
	}
	evs, err := t.c.Events(ctx, cur.Branch, lo, st.Head)
	if err != nil {
		return nil
	}
	return collect(evs, from == 0)
}

// collect pairs approval requests with their answers (after the last prompt when lastTurn).
func collect(evs []harness.Event, lastTurn bool) []approval {
	var out []approval
	idx := map[string]int{}
	for _, ev := range evs {
		p, err := harness.Decode(ev)
		if err != nil {
			continue
		}
		switch p := p.(type) {
		case *harness.InvocationReceived:
			if lastTurn {
				out, idx = nil, map[string]int{}
			}
		case *harness.ApprovalRequested:
			idx[p.CallID] = len(out)
			out = append(out, approval{Tool: p.Tool, Summary: p.Summary, Decision: "pending"})
		case *harness.ApprovalResolved:
			if i, ok := idx[p.CallID]; ok {
				out[i].Decision, out[i].By = p.Decision, ev.Actor
			}
		}
	}
	return out
}
