package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/secrets"
)

// interruptGrace is how long Claude gets to end an interrupted turn before it is killed.
const interruptGrace = 15 * time.Second

// turnRun is one running turn.
type turnRun struct {
	e     *Executor
	sess  *session
	s     *harness.Session
	res   executor.Result
	red   *secrets.Stream
	start time.Time
	// interrupted is set once the user cancelled and Claude was asked to stop.
	interrupted bool
	deadline    <-chan time.Time
	result      *resultMessage
	// sent and ended are when the prompt went to Claude and its result came back.
	sent, ended time.Time
	// ctx is the turn's context; stops counts the times Stop hooks made it go on.
	ctx   context.Context
	stops int
}

// runTurn sends the prompt and translates Claude's messages into events until its result.
func (e *Executor) runTurn(ctx context.Context, sess *session, s *harness.Session, text, source string, notes []string, entered time.Time) (executor.Result, error) {
	t := &turnRun{e: e, sess: sess, s: s, res: executor.Result{SessionID: s.ID}, red: e.h.RedactStream(), start: entered}
	if _, err := e.h.AppendOn(s.ID, s.Branch, harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser,
		harness.InvocationReceived{Text: text, Source: source})); err != nil {
		return t.res, err
	}
	if err := e.x.CloseOpenCalls(s.ID); err != nil {
		return t.res, err
	}
	if err := e.h.EnsureBaseline(s.ID, s.Branch); err != nil {
		return t.res, fmt.Errorf("snapshot the workspace before the turn: %w", err)
	}
	sess.log.BeginTurn(s.Branch)
	sess.conn.setTurn(ctx)
	defer sess.conn.setTurn(context.Background())
	prompt := text
	if len(notes) > 0 {
		prompt = strings.Join(notes, "\n\n") + "\n\n" + text
	}
	t.sent = time.Now()
	if err := sess.proc.Send(userLine(prompt)); err != nil {
		return t.died(err)
	}
	t.ctx = ctx
	err := t.loop(ctx)
	t.finishSums()
	t.measure()
	return t.res, err
}

// measure notes exo's own time in the turn.
func (t *turnRun) measure() {
	sums := t.sess.log.Sums()
	o := overhead{before: t.sent.Sub(t.start), steps: sums.Overhead, calls: sums.Calls}
	if !t.ended.IsZero() {
		o.after = time.Since(t.ended)
	}
	t.e.mu.Lock()
	t.e.last = o
	t.e.mu.Unlock()
}

// loop reads Claude's messages until the turn ends.
func (t *turnRun) loop(ctx context.Context) error {
	done := ctx.Done()
	for {
		msgs, closed := t.sess.conn.take()
		for _, m := range msgs {
			if end, err := t.handle(m); end || err != nil {
				return err
			}
		}
		if closed {
			_, err := t.died(nil)
			return err
		}
		select {
		case <-t.sess.conn.ready():
		case <-done:
			done = nil
			t.interrupt()
		case <-t.deadline:
			t.sess.proc.Kill() // it did not stop in time: the closed stream ends the turn
			t.deadline = nil
		}
	}
}

// interrupt asks Claude to stop the turn (Ctrl-C) and starts the grace period.
func (t *turnRun) interrupt() {
	t.interrupted = true
	t.deadline = time.After(interruptGrace)
	go func() { _, _ = t.sess.conn.request("interrupt", nil, interruptGrace) }()
}

// handle applies one message; end is true when the turn is over.
func (t *turnRun) handle(line []byte) (end bool, err error) {
	var env envelope
	if json.Unmarshal(line, &env) != nil {
		return false, nil
	}
	switch env.Type {
	case "stream_event":
		if env.ParentToolUseID == nil {
			t.streamEvent(env.Event)
		}
	case "assistant":
		t.sess.native.assistant(env.Message)
	case "user":
		return false, t.e.toolResults(t.sess, env.Message)
	case "result":
		t.ended = time.Now()
		var r resultMessage
		_ = json.Unmarshal(line, &r)
		if err := t.finish(&r); err != nil {
			return true, err
		}
		return t.goOn()
	}
	return false, nil
}

// goOn asks the Stop hooks whether the finished turn goes on; when one says so, its message
// (recorded) is sent to Claude and the turn continues (end is false).
func (t *turnRun) goOn() (end bool, err error) {
	if t.res.Cancelled || t.res.Failure != "" {
		return true, nil
	}
	msg, again, err := t.e.x.StopHook(t.ctx, t.s.ID, t.stops)
	if err != nil || !again {
		return true, err
	}
	t.stops++
	t.ended = time.Time{}
	if err := t.sess.proc.Send(userLine(msg)); err != nil {
		return false, nil // the stream closes next: the turn ends as with a dead claude
	}
	return false, nil
}

// streamEvent shows answer text live (redacted) as exo's own executor does.
func (t *turnRun) streamEvent(raw json.RawMessage) {
	var ev streamEvent
	if json.Unmarshal(raw, &ev) != nil {
		return
	}
	switch {
	case ev.Type == "content_block_delta" && ev.Delta != nil && ev.Delta.Type == "text_delta":
		text := ev.Delta.Text
		if t.red != nil {
			text = string(t.red.Next([]byte(text)))
		}
		t.delta(text)
	case ev.Type == "message_stop" && t.red != nil:
		t.delta(string(t.red.Flush()))
	}
}

// delta publishes a piece of answer text.
func (t *turnRun) delta(text string) {
	if text == "" {
		return
	}
	t.e.h.Publish(harness.Notice{Session: t.s.ID, Delta: text})
	if f := t.e.opts.Exec.OnDelta; f != nil {
		f(t.s.ID, text)
	}
}

// finish records the end of the turn from Claude's result.
func (t *turnRun) finish(r *resultMessage) error {
	t.sess.conn.waitHandlers(30 * time.Second)
	t.result = r
	t.res.StopReason = r.StopReason
	if r.Result != "" {
		t.res.Response = t.e.h.Redact(r.Result)
	}
	rec := harness.ExecutorResult{Executor: Name, Subtype: r.Subtype, IsError: r.IsError, Result: r.Result, NumTurns: r.NumTurns,
		DurationMs: r.DurationMs, APIMs: r.DurationAPIMs, AgentCost: r.TotalCostUSD, StopReason: r.StopReason, Denials: len(r.PermissionDenials)}
	if err := t.sess.log.Record(harness.TypeExecutorResult, rec); err != nil {
		return err
	}
	if t.interrupted || r.Subtype == "error_during_execution" && !r.IsError {
		t.res.Cancelled, t.res.StopReason = true, "cancelled"
		return t.sess.log.Record(harness.TypeTurnCancelled, harness.TurnCancelled{Reason: "cancelled by the user"})
	}
	if r.IsError || r.Subtype != "success" {
		t.res.Failure = t.e.h.Redact(firstNonEmpty(r.Result, strings.Join(r.Errors, "; "), r.Subtype))
	}
	return nil
}

// died records that Claude exited during the turn: everything recorded so far stays, the
// session forgets the process, and the next prompt starts a new one from the log.
func (t *turnRun) died(cause error) (executor.Result, error) {
	t.sess.conn.cancelAll()
	t.sess.conn.waitHandlers(30 * time.Second)
	<-t.sess.proc.Done()
	code, sig := t.sess.proc.ExitStatus()
	msg := "claude exited during the turn"
	switch {
	case sig != "":
		msg += " (" + sig + ")"
	case code != nil:
		msg += fmt.Sprintf(" (exit code %d)", *code)
	}
	if cause != nil {
		msg += ": " + cause.Error()
	}
	if t.interrupted {
		msg += " after the user interrupted it"
	}
	t.res.Failure = msg + "; nothing recorded was lost, and the next prompt starts claude again from the log"
	defer t.e.forget(t.sess)
	rec := harness.ExecutorFailed{Executor: Name, Error: t.res.Failure, ExitCode: code, Signal: sig, Stderr: tailLines(t.e.h.Redact(t.sess.proc.StderrTail()), 20)}
	if err := t.sess.log.Record(harness.TypeExecutorFailed, rec); err != nil {
		return t.res, err
	}
	if t.interrupted {
		t.res.Cancelled = true
		return t.res, t.sess.log.Record(harness.TypeTurnCancelled, harness.TurnCancelled{Reason: "cancelled by the user"})
	}
	return t.res, nil
}

// finishSums fills the result from the calls the endpoint recorded.
func (t *turnRun) finishSums() {
	if err := t.sess.log.Flush(); err != nil && t.res.Failure == "" {
		t.res.Failure = "exo could not record part of the turn: " + err.Error()
	}
	sums := t.sess.log.Sums()
	t.res.Steps, t.res.Cost, t.res.TTFTMs = sums.Calls, sums.Cost, sums.TTFT.Milliseconds()
	t.res.Usage, t.res.ModelMs = sums.Usage, sums.ModelTime.Milliseconds()
	t.res.DurationMs = time.Since(t.start).Milliseconds()
	if t.res.Response == "" {
		t.res.Response = sums.Text
	}
	if t.res.Failure == "" && sums.Failure != "" && t.result != nil && t.result.IsError {
		t.res.Failure = sums.Failure
	}
	t.res.ToolCalls = t.sess.native.count + sums.ToolCalls
	if t.e.sessionAfterTurn(t.sess, t.s) != nil {
		t.e.forget(t.sess)
	}
}

// forget drops a session's process.
func (e *Executor) forget(s *session) {
	e.mu.Lock()
	if e.sessions[s.id] == s {
		delete(e.sessions, s.id)
	}
	e.mu.Unlock()
	_ = s.stop()
}

// sessionAfterTurn notes what Claude's conversation now corresponds to.
func (e *Executor) sessionAfterTurn(sess *session, s *harness.Session) error {
	if !sess.alive() {
		return fmt.Errorf("claude is gone")
	}
	cur, err := e.h.Session(s.ID)
	if err != nil || cur.Branch != sess.branch {
		return fmt.Errorf("the session moved")
	}
	spec, err := e.h.Model(cur.Settings["model"])
	if err != nil {
		return err
	}
	v, err := e.x.ViewOf(cur.Branch, spec.ModelID)
	if err != nil {
		return err
	}
	sess.viewLen = len(v.Messages)
	return nil
}

// tailLines keeps the last n lines of s.
func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
