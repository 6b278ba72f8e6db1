package extexec

import (
	"encoding/json"
	"sync"
	"time"

	"exo/harness"
	"exo/harness/provider"
)

// Log records what an agent does in one session into exo's log: its model calls (from the
// loopback endpoint) with this executor's actor, on the branch the turn started on, and sums
// them up per turn.
type Log struct {
	h        *harness.Harness
	session  string
	actor    string
	spec     harness.ModelSpec
	provider string

	mu       sync.Mutex
	cond     *sync.Cond
	branch   string
	step     int
	sums     Sums
	recorded map[string]bool // tool call ids of recorded model answers
	inflight int
}

// Sums add up a turn's model calls.
type Sums struct {
	Calls     int
	Usage     provider.Usage
	Cost      float64
	TTFT      time.Duration // of the turn's first call
	ModelTime time.Duration
	// Text is the last answer's text; Failure the last failed call's message.
	Text    string
	Failure string
	// ToolCalls counts exo's tools the agent called.
	ToolCalls int
}

// NewLog returns the recorder of an agent's session; model is the registered model in force.
func NewLog(h *harness.Harness, sessionID, executor string, spec harness.ModelSpec) *Log {
	l := &Log{h: h, session: sessionID, actor: harness.ExecutorActor(executor), spec: spec, provider: spec.Provider, recorded: map[string]bool{}}
	l.cond = sync.NewCond(&l.mu)
	return l
}

// Actor is the executor's event actor.
func (l *Log) Actor() string { return l.actor }

// Session is the exo session recorded into.
func (l *Log) Session() string { return l.session }

// Spec is the registered model the endpoint forwards to.
func (l *Log) Spec() harness.ModelSpec { return l.spec }

// BeginTurn starts a turn's sums; events go to branch (a rewind meanwhile makes appends fail
// with harness.ErrBranchMoved rather than land on the new branch).
func (l *Log) BeginTurn(branch string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.branch, l.step, l.sums = branch, 0, Sums{}
}

// Sums returns the current turn's sums.
func (l *Log) Sums() Sums {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sums
}

// Append writes records on the turn's branch.
func (l *Log) Append(recs ...harness.Record) error {
	l.mu.Lock()
	branch := l.branch
	l.mu.Unlock()
	_, err := l.h.AppendOn(l.session, branch, recs...)
	return err
}

// Record is a shorthand for appending one event with the executor's actor.
func (l *Log) Record(typ string, payload any) error {
	return l.Append(harness.MustRecord(typ, l.actor, payload))
}

// requested records the start of a model call: step.started and model.requested in one write.
func (l *Log) requested(messages int) error {
	l.mu.Lock()
	l.step++
	l.inflight++
	step := l.step
	l.mu.Unlock()
	return l.Append(
		harness.MustRecord(harness.TypeStepStarted, l.actor, harness.StepStarted{Step: step}),
		harness.MustRecord(harness.TypeModelRequested, l.actor, harness.ModelRequested{Model: l.spec.Label(), Provider: l.provider,
			Step: step, Messages: messages}))
}

// Answer is a model call's outcome as the endpoint saw it.
type Answer struct {
	Text      string
	ToolCalls []harness.ToolCall
	Usage     provider.Usage
	Stop      string
	TTFT      time.Duration
	Took      time.Duration
}

// completed records a model answer.
func (l *Log) completed(a Answer) error {
	cost := l.spec.Cost(a.Usage)
	err := l.Record(harness.TypeModelCompleted, harness.ModelCompleted{Model: l.spec.Label(), Text: a.Text, ToolCalls: a.ToolCalls,
		Usage: harness.Usage{Input: int(a.Usage.Input), Output: int(a.Usage.Output), Cached: int(a.Usage.Cached)},
		Cost:  cost, TTFTMs: a.TTFT.Milliseconds(), DurationMs: a.Took.Milliseconds(), StopReason: a.Stop})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sums.Calls++
	l.sums.Usage = l.sums.Usage.Add(a.Usage)
	l.sums.Cost += cost
	if l.sums.TTFT == 0 {
		l.sums.TTFT = a.TTFT
	}
	l.sums.ModelTime += a.Took
	if a.Text != "" {
		l.sums.Text = a.Text
	}
	for _, c := range a.ToolCalls {
		l.recorded[c.ID] = true
	}
	l.done()
	return err
}

// failed records a model call that ended without an answer (an upstream error).
func (l *Log) failed(kind, msg string, retryable bool, took time.Duration) error {
	msg = l.h.Redact(msg)
	err := l.Record(harness.TypeModelFailed, harness.ModelFailed{Model: l.spec.Label(), Error: msg, Kind: kind, Retryable: retryable})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sums.Failure = msg
	l.sums.ModelTime += took
	l.done()
	return err
}

// abandoned notes a call the agent gave up on (it went away mid-answer): nothing is recorded
// for it here; the adapter records how the turn ended.
func (l *Log) abandoned(took time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sums.ModelTime += took
	l.done()
}

// done ends an in-flight call (l.mu held).
func (l *Log) done() {
	l.inflight--
	l.cond.Broadcast()
}

// WaitAnswer waits until the model answer that made tool call id is recorded, so that a tool's
// events follow the answer that asked for it (agents start tools while the answer still streams).
// It returns at once when no model call is in flight, and after timeout at the latest.
func (l *Log) WaitAnswer(id string, timeout time.Duration) {
	stop := time.AfterFunc(timeout, func() {
		l.mu.Lock()
		l.cond.Broadcast()
		l.mu.Unlock()
	})
	defer stop.Stop()
	deadline := time.Now().Add(timeout)
	l.mu.Lock()
	defer l.mu.Unlock()
	for !l.recorded[id] && l.inflight > 0 && time.Now().Before(deadline) {
		l.cond.Wait()
	}
}

// CountTool counts one call of exo's tools in the turn.
func (l *Log) CountTool() {
	l.mu.Lock()
	l.sums.ToolCalls++
	l.mu.Unlock()
}

// rawJSON returns raw when it is a JSON value, else "{}".
func rawJSON(raw []byte) json.RawMessage {
	if len(raw) == 0 || !json.Valid(raw) {
		return json.RawMessage("{}")
	}
	return json.RawMessage(raw)
}
