package extexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/provider"
	"exo/harness/secrets"
)

// Turn is one running turn of an agent. The Runner records the prompt before it and the sums
// after it; the adapter's Proc reports what happens in between through its methods.
type Turn struct {
	r   *Runner
	ss  *Session
	s   *harness.Session
	ctx context.Context
	res executor.Result
	red *secrets.Stream
	// think redacts streamed reasoning, as red the answer; thinkMu guards it (the endpoint's
	// calls show reasoning beside the adapter, see ReasoningFromEndpoint).
	think   *secrets.Stream
	thinkMu sync.Mutex

	start time.Time
	sent  time.Time
	ended time.Time
	stops int
	// interrupted is set once the user cancelled and the agent was asked to stop.
	interrupted bool
	// agentFailed is set when the agent reported the turn as failed.
	agentFailed bool
	// images are the prompt's images with their bytes (see Images).
	images []provider.Image
}

// AgentResult is an agent's own account of how a turn ended.
type AgentResult struct {
	Subtype    string // success, error_during_execution, completed, interrupted, failed…
	IsError    bool
	Text       string // the final answer or the error
	NumTurns   int
	DurationMs int64
	APIMs      int64
	AgentCost  float64
	StopReason string
	Denials    int
	// Cancelled says the agent stopped because the user interrupted it.
	Cancelled bool
	// Usage is the agent's last account of its usage in the turn (agent.usage), recorded in the
	// commit of the turn's end rather than in one of its own (nil: none came).
	Usage *harness.AgentUsage
}

// turn records the prompt, lets the agent run the turn and sums it up.
func (r *Runner) turn(ctx context.Context, ss *Session, s *harness.Session, text, source string, notes []string, entered time.Time) (executor.Result, error) {
	t := &Turn{r: r, ss: ss, s: s, ctx: ctx, res: executor.Result{SessionID: s.ID}, red: r.h.RedactStream(), think: r.h.RedactStream(),
		start: entered}
	atts, err := r.h.Attach(s.ID, text)
	if err != nil {
		return t.res, err
	}
	if t.images, err = r.turnImages(ss, atts); err != nil {
		t.res.Failure = err.Error()
		return t.res, err
	}
	// The prompt is held (see harness.Hold): the appends below, if any, commit it first, else the
	// log's writer does while the agent starts on it; the agent's answers and tool calls are
	// recorded after it in any case.
	inv := harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser,
		harness.InvocationReceived{Text: text, Source: source, Attachments: atts})
	inv.Data = []byte(r.h.Redact(string(inv.Data)))
	var recorded harness.InvocationReceived
	if err := json.Unmarshal(inv.Data, &recorded); err == nil {
		atts = recorded.Attachments // as recorded: secrets redacted
	}
	r.h.Hold(s.ID, s.Branch, executor.HoldWait, inv)
	if err := r.x.CloseOpenCalls(s.ID); err != nil {
		return t.res, errors.Join(err, r.h.Release(s.ID))
	}
	if err := r.h.EnsureBaseline(s.ID, s.Branch); err != nil {
		return t.res, errors.Join(fmt.Errorf("snapshot the workspace before the turn: %w", err), r.h.Release(s.ID))
	}
	ss.Log.BeginTurn(s.Branch)
	ss.Log.Commit()
	// The agent gets the prompt as recorded: a secret the user pasted reaches neither the agent
	// (which keeps its transcript) nor the model, as with exo's own executor, which sends the log.
	prompt := r.h.Redact(text) + harness.AttachmentsText(atts)
	if len(notes) > 0 {
		prompt = strings.Join(notes, "\n\n") + "\n\n" + prompt
	}
	ss.Log.Expect(prompt)
	t.sent = time.Now()
	spanCtx, endSpan := r.x.TurnSpan(ctx, s.ID)
	t.ctx = spanCtx
	ss.Tools.setTurn(spanCtx)
	err = ss.Proc.Turn(spanCtx, t, prompt)
	ss.Tools.setTurn(context.Background()) // no turn runs: no span
	if berr := t.budgetEnd(); err == nil {
		err = berr
	}
	t.finishSums()
	ss.Log.EndTurn()
	r.h.EndTurn(s.ID) // what the turn's commands detached ends with it; a failure is a notice
	t.measure()
	endSpan(t.res, err)
	return t.res, err
}

// Session is the agent session the turn runs in.
func (t *Turn) Session() *Session { return t.ss }

// SessionID is the exo session.
func (t *Turn) SessionID() string { return t.s.ID }

// Context is the turn's context (cancelled when the user interrupts).
func (t *Turn) Context() context.Context { return t.ctx }

// Harness is the harness the turn records into.
func (t *Turn) Harness() *harness.Harness { return t.r.h }

// Expect tells exo the exact text the adapter sends the agent as the prompt, when it is not the
// prompt it was given (an ACP agent's first prompt carries the conversation so far): the model
// call that carries it is the conversation's, any other is a side call.
func (t *Turn) Expect(text string) { t.ss.Log.Expect(text) }

// Interrupt notes that the user cancelled and the agent was asked to stop.
func (t *Turn) Interrupt() { t.interrupted = true }

// Interrupted reports whether the user cancelled the turn.
func (t *Turn) Interrupted() bool { return t.interrupted }

// Delta shows a piece of the agent's answer text live (redacted) as exo's own executor does.
func (t *Turn) Delta(text string) {
	if t.red != nil {
		text = string(t.red.Next([]byte(text)))
	}
	t.publish(text)
}

// Thinking shows a piece of the agent's reasoning live (redacted), as "thinking", as exo's own
// executor streams a model's reasoning.
func (t *Turn) Thinking(text string) {
	t.thinkMu.Lock()
	defer t.thinkMu.Unlock()
	if t.think != nil {
		text = string(t.think.Next([]byte(text)))
	}
	if text != "" {
		t.r.h.Publish(harness.Notice{Session: t.s.ID, Reasoning: text})
	}
}

// EndMessage releases answer text the redactor held back at the end of a message.
func (t *Turn) EndMessage() {
	if t.red != nil {
		t.publish(string(t.red.Flush()))
	}
	t.thinkMu.Lock()
	defer t.thinkMu.Unlock()
	if t.think != nil {
		if rest := string(t.think.Flush()); rest != "" {
			t.r.h.Publish(harness.Notice{Session: t.s.ID, Reasoning: rest})
		}
	}
}

func (t *Turn) publish(text string) {
	if text == "" {
		return
	}
	t.r.h.Publish(harness.Notice{Session: t.s.ID, Delta: text})
	if f := t.r.opts.OnDelta; f != nil {
		f(t.s.ID, text)
	}
}

// finishWait bounds how long a turn's end waits for the conversation's call in flight to be
// recorded (see Log.WaitMain).
const finishWait = 2 * time.Second

// Finish records how the agent says the turn ended: its usage, executor.result, and
// turn.cancelled when it was interrupted, in one commit (one fsync on the way to the user). The
// adapter calls it once its own handlers are done.
func (t *Turn) Finish(a AgentResult) error {
	if !t.interrupted && !a.Cancelled { // a cancelled call may never complete
		t.ss.Log.WaitMain(finishWait)
	}
	t.ended = time.Now()
	t.res.StopReason = a.StopReason
	if a.Text != "" {
		t.res.Response = t.r.h.Redact(a.Text)
	}
	rec := harness.ExecutorResult{Executor: t.r.agent.Name(), Subtype: a.Subtype, IsError: a.IsError, Result: a.Text, NumTurns: a.NumTurns,
		DurationMs: a.DurationMs, APIMs: a.APIMs, AgentCost: a.AgentCost, StopReason: a.StopReason, Denials: a.Denials}
	var recs []harness.Record
	if a.Usage != nil {
		recs = append(recs, harness.MustRecord(harness.TypeAgentUsage, harness.ActorHarness, *a.Usage))
	}
	recs = append(recs, harness.MustRecord(harness.TypeExecutorResult, t.ss.Log.Actor(), rec))
	cancelled := t.interrupted || a.Cancelled
	if cancelled {
		t.res.Cancelled, t.res.StopReason = true, "cancelled"
		recs = append(recs, harness.MustRecord(harness.TypeTurnCancelled, t.ss.Log.Actor(), harness.TurnCancelled{Reason: "cancelled by the user"}))
	} else if a.IsError {
		t.agentFailed = true
		t.res.Failure = t.r.h.Redact(firstNonEmpty(a.Text, a.Subtype))
	}
	return t.ss.Log.Append(recs...)
}

// GoOn asks the Stop hooks whether a finished turn goes on; when one says so, its message is
// recorded and returned for the adapter to send (the turn then continues).
func (t *Turn) GoOn() (string, bool, error) {
	if t.res.Cancelled || t.res.Failure != "" || t.ss.Log.Refused() != nil {
		return "", false, nil
	}
	msg, again, err := t.r.x.StopHook(t.ctx, t.s.ID, t.stops)
	if err != nil || !again {
		return "", false, err
	}
	t.stops++
	t.ended = time.Time{}
	t.ss.Log.Expect(msg)
	return msg, true, nil
}

// Died records that the agent exited during the turn: everything recorded so far stays, the
// session forgets the process, and the next prompt starts a new one from the log. code or signal
// say how it ended; stderr is the tail of its error output.
func (t *Turn) Died(cause error, code *int, signal, stderr string) error {
	name := t.r.agent.Name()
	msg := name + " exited during the turn"
	switch {
	case signal != "":
		msg += " (" + signal + ")"
	case code != nil:
		msg += fmt.Sprintf(" (exit code %d)", *code)
	}
	if cause != nil {
		msg += ": " + cause.Error()
	}
	if t.interrupted {
		msg += " after the user interrupted it"
	}
	t.res.Failure = msg + "; nothing recorded was lost, and the next prompt starts it again from the log"
	defer t.r.forget(t.ss)
	rec := harness.ExecutorFailed{Executor: name, Error: t.res.Failure, ExitCode: code, Signal: signal, Stderr: tailLines(t.r.h.Redact(stderr), 20)}
	recs := []harness.Record{harness.MustRecord(harness.TypeExecutorFailed, t.ss.Log.Actor(), rec)}
	if t.interrupted {
		t.res.Cancelled = true
		recs = append(recs, harness.MustRecord(harness.TypeTurnCancelled, t.ss.Log.Actor(), harness.TurnCancelled{Reason: "cancelled by the user"}))
	}
	return t.ss.Log.Append(recs...) // in one commit
}

// budgetEnd ends a turn whose model calls were refused for a spent budget as exo's own executor
// does: turn.cancelled with the reason (budget.exceeded was recorded when the first call was
// refused), and the result's failure and stop reason say so.
func (t *Turn) budgetEnd() error {
	refused := t.ss.Log.Refused()
	if refused == nil {
		return nil
	}
	t.res.Failure, t.res.StopReason = refused.Error(), "budget"
	if t.res.Cancelled {
		return nil
	}
	return t.ss.Log.Record(harness.TypeTurnCancelled, harness.TurnCancelled{Reason: refused.Error()})
}

// finishSums fills the result from the calls the endpoint recorded.
func (t *Turn) finishSums() {
	if err := t.ss.Log.Flush(); err != nil && t.res.Failure == "" {
		t.res.Failure = "exo could not record part of the turn: " + err.Error()
	}
	sums := t.ss.Log.Sums()
	t.res.Steps, t.res.Cost, t.res.TTFTMs = sums.Calls, sums.Cost, sums.TTFT.Milliseconds()
	t.res.Usage, t.res.ModelMs = sums.Usage, sums.ModelTime.Milliseconds()
	t.res.DurationMs = time.Since(t.start).Milliseconds()
	t.res.ToolCalls = sums.ToolCalls
	if t.res.Response == "" {
		t.res.Response = sums.Text
	}
	if t.res.Failure == "" && sums.Failure != "" && t.agentFailed {
		t.res.Failure = sums.Failure
	}
	if t.afterTurn() != nil {
		t.r.forget(t.ss)
	}
}

// afterTurn notes what the agent's conversation now corresponds to.
func (t *Turn) afterTurn() error {
	if !t.ss.alive() {
		return fmt.Errorf("the agent is gone")
	}
	cur, err := t.r.h.Session(t.s.ID)
	if err != nil || cur.Branch != t.ss.Branch {
		return fmt.Errorf("the session moved")
	}
	spec, err := t.r.h.Model(cur.Settings["model"])
	if err != nil {
		return err
	}
	v, err := t.r.x.ViewOf(cur.Branch, spec.ModelID)
	if err != nil {
		return err
	}
	t.ss.viewLen = len(v.Messages)
	return nil
}

// measure notes exo's own time in the turn.
func (t *Turn) measure() {
	sums := t.ss.Log.Sums()
	o := Overhead{Before: t.sent.Sub(t.start), Steps: sums.Overhead, Calls: sums.Calls}
	if !t.ended.IsZero() {
		o.After = time.Since(t.ended)
	}
	t.r.mu.Lock()
	t.r.last = o
	t.r.mu.Unlock()
}

// CountTool counts one of the agent's own tool calls in the turn's result.
func (t *Turn) CountTool() { t.ss.Log.CountTool() }

// tailLines keeps the last n lines of s.
func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ReasoningFromEndpoint shows, for the rest of the turn, the reasoning of the conversation's
// model calls as exo's endpoint decodes it from the model's answers (redacted as Thinking),
// for an agent whose own account of its reasoning is not the model's: the Gemini CLI hands each
// piece of a thought on as a thought of its own, titled. The adapter then drops the agent's
// thought updates; what model.completed keeps is the endpoint's in any case.
func (t *Turn) ReasoningFromEndpoint() { t.ss.Log.showReasoning(t.Thinking) }
