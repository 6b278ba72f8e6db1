package extexec

import (
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/provider"
)

// modelCall is one model call through the endpoint, placed on the conversation (main: recorded
// as step.started, model.requested, then model.completed or model.failed) or beside it (a side
// call: one model.side when it ends).
type modelCall struct {
	l       *Log
	main    bool
	purpose string
	// settled is set once the call's answer was taken in or it ended without one (answered).
	settled bool
	// refusal is set when the call must not reach the model (a spent budget): the endpoint
	// answers it with this message and nothing else is recorded for it.
	refusal string
	// thinking, when set, is shown the answer's reasoning as the endpoint decodes it (a call on
	// the conversation of a turn whose agent alters the reasoning it reports).
	thinking func(string)
}

// begin checks the budgets, places a call and, for one on the conversation, queues
// step.started and model.requested, held for the next commit (at the latest HoldWait later).
func (l *Log) begin(sh callShape, messages int) *modelCall {
	if err := l.checkBudget(); err != nil {
		return &modelCall{l: l, refusal: l.h.Redact(err.Error())}
	}
	l.mu.Lock()
	if len(sh.results) > 0 {
		l.awaitAnswer(resultsWait)
	}
	pl := l.place(sh)
	l.inflight++
	c := &modelCall{l: l, main: pl.main, purpose: pl.purpose}
	if c.main {
		c.thinking = l.thinking
	}
	if !c.main {
		l.mu.Unlock()
		return c
	}
	l.mainInflight++
	l.answering++
	l.step++
	step := l.step
	l.mu.Unlock()
	// Held in their place, as the answer: a quick answer and its tool call's result commit with
	// them; a call that takes longer has them committed while it runs.
	l.enqueueJob(logJob{hold: executor.HoldWait, recs: []harness.Record{
		harness.MustRecord(harness.TypeStepStarted, l.actor, harness.StepStarted{Step: step}),
		harness.MustRecord(harness.TypeModelRequested, l.actor, harness.ModelRequested{Model: l.spec.Label(), Provider: l.provider,
			Step: step, Messages: messages})}})
	return c
}

// Answer is a model call's outcome as the endpoint saw it.
type Answer struct {
	Text string
	// Reasoning is the model's reasoning as the API sent it (thinking blocks, reasoning items).
	Reasoning []provider.Reasoning
	ToolCalls []harness.ToolCall
	Usage     provider.Usage
	Stop      string
	TTFT      time.Duration
	Took      time.Duration
}

// completed queues the call's answer; once committed (the conversation's: once held in its
// place in the log's order, see Log), its tool calls count as recorded. Tool
// names are recorded as exo knows them (mcp__exo__bash is exo's bash), so every executor reads
// one conversation.
func (c *modelCall) completed(a Answer) {
	l := c.l
	cost := harness.ModelCost(l.spec, a.Usage)
	raw := make([]string, len(a.ToolCalls))
	for i := range a.ToolCalls {
		raw[i] = a.ToolCalls[i].Name
		a.ToolCalls[i].Name = harness.ExoToolName(a.ToolCalls[i].Name)
	}
	u := harness.Usage{Input: int(a.Usage.Input), Output: int(a.Usage.Output), Cached: int(a.Usage.Cached)}
	l.mu.Lock()
	l.sums.Usage = l.sums.Usage.Add(a.Usage)
	l.sums.Cost += cost
	l.sums.ModelTime += a.Took
	var rec harness.Record
	if c.main {
		l.sums.Calls++
		l.turnMain++
		if l.sums.TTFT == 0 {
			l.sums.TTFT = a.TTFT
		}
		if a.Text != "" {
			l.sums.Text = a.Text
		}
		l.lastCalls = map[string]bool{}
		for _, tc := range a.ToolCalls {
			l.lastCalls[tc.ID] = true
		}
		l.noteAnswer(a.ToolCalls, raw)
		rec = harness.MustRecord(harness.TypeModelCompleted, l.actor, harness.ModelCompleted{Model: l.spec.Label(), Text: a.Text, Reasoning: l.reasoning(a.Reasoning),
			ToolCalls: a.ToolCalls, Usage: u, Cost: cost, TTFTMs: a.TTFT.Milliseconds(), DurationMs: a.Took.Milliseconds(), StopReason: a.Stop})
	} else {
		l.sums.SideCalls++
		side := harness.ModelSide{Model: l.spec.Label(), Purpose: c.purpose, Text: harness.CutSideText(a.Text), Usage: u, Cost: cost,
			TTFTMs: a.TTFT.Milliseconds(), DurationMs: a.Took.Milliseconds(), StopReason: a.Stop}
		for _, tc := range a.ToolCalls {
			side.ToolCalls = append(side.ToolCalls, tc.Name)
		}
		rec = harness.MustRecord(harness.TypeModelSide, l.actor, side)
	}
	c.answered() // lastCalls hold this answer's calls now
	l.mu.Unlock()
	j := logJob{recs: []harness.Record{rec}, after: func(error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, tc := range a.ToolCalls {
			l.recorded[tc.ID] = true
		}
		l.done(c.main)
	}}
	if c.main {
		// Held in its place: its tool calls' results (or the turn's end) commit it with them.
		j.hold = executor.HoldWait
	}
	l.enqueueJob(j)
}

// failed queues a call that ended without an answer (an upstream error): model.failed for the
// conversation's, model.side with the error for a side call (which does not fail the turn).
func (c *modelCall) failed(kind, msg string, retryable bool, took time.Duration) {
	l := c.l
	msg = l.h.Redact(msg)
	l.mu.Lock()
	l.sums.ModelTime += took
	if c.main {
		l.sums.Failure = msg
	}
	c.answered()
	l.mu.Unlock()
	rec := harness.MustRecord(harness.TypeModelFailed, l.actor, harness.ModelFailed{Model: l.spec.Label(), Error: msg, Kind: kind, Retryable: retryable})
	if !c.main {
		rec = harness.MustRecord(harness.TypeModelSide, l.actor, harness.ModelSide{Model: l.spec.Label(), Purpose: c.purpose, Error: msg, Kind: kind,
			DurationMs: took.Milliseconds()})
	}
	l.enqueue(c.doneLocked, rec)
}

// abandoned notes a call the agent gave up on (it went away mid-answer): nothing is recorded
// for it here; the adapter records how the turn ended.
func (c *modelCall) abandoned(took time.Duration) {
	l := c.l
	l.mu.Lock()
	l.sums.ModelTime += took
	c.answered()
	l.mu.Unlock()
	l.enqueue(c.doneLocked)
}

// resultsWait bounds how long a call that carries tool results waits for the conversation's
// answer in flight to be taken in (see awaitAnswer).
const resultsWait = 2 * time.Second

// awaitAnswer waits, at most timeout, until no answer on the conversation is still being taken
// in (l.mu held). An agent sends the call that carries its tools' results as soon as the
// answer's last tool call reaches it, which can be before exo's endpoint has seen the upstream
// stream end and taken the answer in: placed then, the call's results match no call of the
// last answer, and the conversation's next step would be recorded as a side call. A side call
// carrying results while an answer streams (a subagent's) waits the same, at most timeout.
func (l *Log) awaitAnswer(timeout time.Duration) {
	if l.answering == 0 {
		return
	}
	stop := time.AfterFunc(timeout, func() {
		l.mu.Lock()
		l.cond.Broadcast()
		l.mu.Unlock()
	})
	defer stop.Stop()
	deadline := time.Now().Add(timeout)
	for l.answering > 0 && time.Now().Before(deadline) {
		l.cond.Wait()
	}
}

// answered notes that a call's answer was taken in, or that it ended without one (l.mu held).
func (c *modelCall) answered() {
	if c.main && !c.settled {
		c.settled = true
		c.l.answering--
		c.l.cond.Broadcast()
	}
}

// doneLocked ends the in-flight call once the queue reaches it.
func (c *modelCall) doneLocked(error) {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	c.l.done(c.main)
}

// done ends an in-flight call, on the conversation when main (l.mu held).
func (l *Log) done(main bool) {
	l.inflight--
	if main {
		l.mainInflight--
	}
	l.cond.Broadcast()
}

// reasoning is what model.completed keeps of an answer's reasoning: each part stamped with the
// upstream it came from (where exo's provider did not already), then redacted as exo's own
// executor does (a part whose text had to change loses its signature).
func (l *Log) reasoning(parts []provider.Reasoning) []provider.Reasoning {
	if len(parts) == 0 {
		return nil
	}
	origin := provider.OriginOf(l.spec.Provider, l.spec.BaseURL, l.spec.ModelID)
	out := make([]provider.Reasoning, len(parts))
	for i, r := range parts {
		if r.Origin == "" {
			r.Origin = origin
		}
		out[i] = r
	}
	return l.h.RedactReasoning(out)
}
