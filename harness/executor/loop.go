package executor

import (
	"context"
	"errors"
	"exo/harness/api"
	"fmt"
	"strings"
	"time"

	"exo/harness"
	"exo/harness/provider"
)

// ErrBusy means a turn is already running on the session.
var ErrBusy = api.ErrBusy

// Result sums up one turn.
type Result = harness.TurnResult

// Prompt appends a user message and runs the turn it starts, with the executor's options.
func (x *Executor) Prompt(ctx context.Context, sessionID, text, source string) (Result, error) {
	return x.PromptWith(ctx, sessionID, text, source, TurnOptions{})
}

// PromptWith is Prompt with options for this turn only (a daemon serves clients that differ:
// a headless `exo run`, an app that can answer approvals).
func (x *Executor) PromptWith(ctx context.Context, sessionID, text, source string, to TurnOptions) (Result, error) {
	if err := x.CheckBudget(sessionID); err != nil {
		return Result{SessionID: sessionID, Failure: err.Error()}, err
	}
	if x.opts.BeforePrompt != nil {
		if err := x.opts.BeforePrompt(sessionID); err != nil {
			return Result{SessionID: sessionID}, err
		}
	}
	text, source, model, err := x.expand(sessionID, text, source)
	if err != nil {
		return Result{SessionID: sessionID}, err
	}
	if x.opts.Hooks != nil {
		s, err := x.h.Session(sessionID)
		if err != nil {
			return Result{SessionID: sessionID}, err
		}
		block, reason, extra := x.opts.Hooks.UserPromptSubmit(ctx, s, text)
		if block {
			return Result{SessionID: sessionID, Failure: "the prompt was blocked by a UserPromptSubmit hook: " + reason}, nil
		}
		if extra != "" {
			text += "\n\n[context from a UserPromptSubmit hook]\n" + extra
		}
	}
	atts, err := x.h.Attach(sessionID, text)
	if err != nil {
		return Result{SessionID: sessionID}, err
	}
	if err := x.checkImages(sessionID, model, atts); err != nil {
		return Result{SessionID: sessionID, Failure: err.Error()}, err
	}
	if _, err := x.h.Append(sessionID, harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser,
		harness.InvocationReceived{Text: text, Source: source, Attachments: atts})); err != nil {
		return Result{SessionID: sessionID}, err
	}
	if model != "" {
		x.setTurnModel(sessionID, model)
		defer x.setTurnModel(sessionID, "")
	}
	return x.RunTurnWith(ctx, sessionID, to)
}

// RunTurn runs the next turn of a session with the executor's options (see RunTurnWith).
func (x *Executor) RunTurn(ctx context.Context, sessionID string) (Result, error) {
	return x.RunTurnWith(ctx, sessionID, TurnOptions{})
}

// RunTurnWith runs model steps and tools until the model stops calling tools, the step limit is hit,
// the model fails or ctx is cancelled. Every outcome ends in an event; nothing is half-written.
func (x *Executor) RunTurnWith(ctx context.Context, sessionID string, to TurnOptions) (Result, error) {
	if !x.claim(sessionID) {
		return Result{SessionID: sessionID}, ErrBusy
	}
	defer x.release(sessionID)
	start := time.Now()
	ctx, span := x.startTurnSpan(ctx, sessionID)
	t, err := x.newTurn(sessionID)
	if err != nil {
		endTurnSpan(span, Result{}, err)
		return Result{SessionID: sessionID}, err
	}
	t.to = to.merge(x.opts)
	err = t.run(ctx)
	// What the turn's commands detached ends with it (background tasks go on).
	x.h.EndTurn(sessionID) // a failure is published as a notice: the turn's outcome stands
	t.res.DurationMs = time.Since(start).Milliseconds()
	x.lastModel.Store(int64(t.modelTime))
	endTurnSpan(span, t.res, err)
	return t.res, err
}

// claim marks a session busy; release frees it.
func (x *Executor) claim(id string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.busy == nil {
		x.busy = map[string]bool{}
	}
	if x.busy[id] {
		return false
	}
	x.busy[id] = true
	return true
}

func (x *Executor) release(id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.busy, id)
}

// turn is one running turn.
type turn struct {
	x      *Executor
	s      *harness.Session
	prov   provider.Provider
	model  harness.ModelSpec
	system string
	res    Result
	// to are this turn's options, the executor's where the caller gave none.
	to TurnOptions
	// modelTime is the precise time spent in model calls.
	modelTime time.Duration
	// comp checks compaction before each model call; compactErr keeps its last failure.
	comp       *compactor
	compactErr string
	// stops counts the times Stop hooks made this turn go on.
	stops int
	// startStop is a SessionStart hook's continue:false: the turn ends before the model is called.
	startStop HookStop
	// baselined is set once the workspace's first snapshot is known to exist (ensureBaseline).
	baselined bool
	// hold makes a tool call's start and result held for one commit with what follows (see
	// holdCall): set for an external agent's calls.
	hold bool
}

// newTurn resolves the session, its model and the system prompt.
func (x *Executor) newTurn(sessionID string) (*turn, error) {
	s, err := x.h.Session(sessionID)
	if err != nil {
		return nil, err
	}
	prov, spec, err := x.h.OpenProvider(x.turnModel(s))
	if err != nil {
		return nil, err
	}
	t := &turn{x: x, s: s, prov: prov, model: spec, res: Result{SessionID: s.ID}}
	if err := t.recordInstructions(); err != nil {
		return nil, fmt.Errorf("record the instruction files: %w", err)
	}
	if err := t.startSystem(context.Background()); err != nil {
		return nil, err
	}
	return t, nil
}

// startSystem builds the turn's system prompt with the SessionStart hooks' context (running
// them when they have not run for the session yet) and keeps a hook's stop.
func (t *turn) startSystem(ctx context.Context) error {
	v, err := t.x.ViewOf(t.s.Branch, t.model.ModelID)
	if err != nil {
		return err
	}
	t.system = t.x.systemPrompt(t.s, v.Instructions())
	extra, stop := t.x.sessionStartHook(ctx, t.s)
	t.startStop = stop
	if extra != "" {
		t.system += "\n# Context from SessionStart hooks\n\n" + extra + "\n"
	}
	return nil
}

// append writes events on the turn's branch; a rewind in between stops the turn.
func (t *turn) append(typ string, payload any) error {
	_, err := t.x.h.AppendOn(t.s.ID, t.s.Branch, harness.MustRecord(typ, t.x.actor(), payload))
	return err
}

// run is the step loop.
func (t *turn) run(ctx context.Context) error {
	if err := t.closeInterrupted(); err != nil {
		return err
	}
	if t.startStop.Stop {
		return t.hookStopped(t.startStop)
	}
	for step := 1; step <= t.to.MaxSteps; step++ {
		if ctx.Err() != nil {
			return t.cancelled("cancelled by the user")
		}
		t.res.Steps = step
		if step > 1 {
			if err := t.x.takeSteers(t.s.ID, t.s.Branch); err != nil {
				return err
			}
		}
		resp, done, err := t.callModel(ctx, step)
		if err != nil || done {
			return err
		}
		if len(resp.ToolCalls) == 0 {
			if goOn, err := t.stopHook(ctx); goOn || err != nil {
				if err != nil {
					return err
				}
				continue
			}
			return nil
		}
		if err := t.ensureBaseline(); err != nil {
			return err
		}
		if err := t.runTools(ctx, resp.ToolCalls); err != nil || t.res.StopReason == stopByHook || t.res.Cancelled {
			return err // runTools has recorded how the turn ended
		}
	}
	return t.stepLimit()
}

// ensureBaseline makes sure the workspace's first snapshot exists before the turn's tools run,
// the first thing of the turn that changes files. It is not taken before the first model call, which
// changes nothing: the service starts it in the background when the turn starts
// (PrepareBaseline), so a turn that only answers never waits for it, and one that runs a tool
// usually finds it done.
func (t *turn) ensureBaseline() error {
	if t.baselined {
		return nil
	}
	if err := t.x.h.EnsureBaseline(t.s.ID, t.s.Branch); err != nil {
		return fmt.Errorf("snapshot the workspace before the turn's first change: %w", err)
	}
	t.baselined = true
	return nil
}

// stepLimit records the end of a turn that made all the model calls it was allowed: its own
// record (turn.step_limit), not the user's cancel. The result stays Cancelled too, with
// StepLimit set.
func (t *turn) stepLimit() error {
	t.res.StepLimit, t.res.Cancelled = true, true
	t.res.StopReason = harness.StopStepLimit
	return t.append(harness.TypeTurnStepLimit, harness.TurnStepLimit{Limit: t.to.MaxSteps})
}

// cancelled records the end of a turn stopped before the model finished.
func (t *turn) cancelled(reason string) error {
	t.res.Cancelled = true
	t.res.StopReason = "cancelled"
	return t.append(harness.TypeTurnCancelled, harness.TurnCancelled{Reason: reason})
}

// closeInterrupted reports tool calls that started but never completed (a crash mid-turn).
func (t *turn) closeInterrupted() error {
	st, err := t.x.h.BranchState(t.s.Branch)
	if err != nil {
		return err
	}
	for id := range st.OpenCalls {
		evs, err := t.x.h.BranchEvents(t.s.Branch, st.OpenCalls[id], st.OpenCalls[id])
		if err != nil || len(evs) == 0 {
			continue
		}
		p, _ := harness.Decode(evs[0])
		ts, _ := p.(*harness.ToolStarted)
		tool := ""
		if ts != nil {
			tool = ts.Tool
		}
		if err := t.append(harness.TypeToolCompleted, harness.ToolCompleted{CallID: id, Tool: tool, Interrupted: true,
			IsError: true, Output: "exo stopped before this call finished; it may or may not have taken effect"}); err != nil {
			return err
		}
	}
	return nil
}

// callModel builds the prompt from the view, streams the model's answer and records it.
// done is true when the turn ended (failure or cancel, already recorded).
func (t *turn) callModel(ctx context.Context, step int) (provider.Response, bool, error) {
	if stop, err := t.budgetStop(); stop || err != nil {
		return provider.Response{}, true, err
	}
	if stop := t.compact(ctx); stop.Stop {
		return provider.Response{}, true, t.hookStopped(stop)
	}
	view, err := t.x.ViewOf(t.s.Branch, t.model.ModelID)
	if err != nil {
		return provider.Response{}, true, err
	}
	msgs, err := t.x.loadImages(t.model, view.Messages)
	if err != nil {
		return provider.Response{}, true, t.modelFailed(ctx, err)
	}
	req := provider.Request{Model: t.model.ModelID, System: t.system, Messages: msgs,
		Tools: t.x.sessionTools(ctx, t.s.ID), MaxOutputTokens: t.model.MaxOutput, CachePrefix: true, CacheKey: t.s.ID}
	req.ReasoningEffort, req.ThinkingBudget = t.model.Reasoning()
	// step.started and model.requested commit together: one durable write before the call.
	evs, err := t.x.h.AppendOn(t.s.ID, t.s.Branch,
		harness.MustRecord(harness.TypeStepStarted, t.x.actor(), harness.StepStarted{Step: step}),
		harness.MustRecord(harness.TypeModelRequested, t.x.actor(), harness.ModelRequested{Model: t.model.Label(), Provider: t.prov.Name(),
			Step: step, PromptTokens: view.Tokens, Messages: len(req.Messages)}))
	if err != nil {
		return provider.Response{}, true, err
	}
	release, err := t.x.slot(ctx)
	if err != nil {
		return provider.Response{}, true, t.modelFailed(ctx, err)
	}
	defer release()
	started := time.Now()
	spanCtx, span := t.startModelSpan(ctx, req)
	live := t.newLive()
	live.saver = t.newStreamSaver(evs[len(evs)-1].Seq, view.Tokens)
	defer live.saver.close() // after the answer, its cut or its failure is recorded
	resp, err := t.prov.Stream(spanCtx, req, live.delta)
	live.flush()
	took := time.Since(started)
	t.endModelSpan(spanCtx, span, resp, took, err)
	t.res.ModelMs += took.Milliseconds()
	t.modelTime += took
	if err != nil {
		n, _ := provider.CountTokens(t.model.ModelID, t.system)
		if _, kerr := t.keepCut(ctx, err, view.Tokens+n, took); kerr != nil {
			return resp, true, kerr
		}
		return resp, true, t.modelFailed(ctx, err)
	}
	if err := t.completed(resp, took); err != nil {
		return resp, true, err
	}
	stop, err := t.budgetAfter(resp)
	return resp, stop, err
}

// completed records a model answer.
func (t *turn) completed(resp provider.Response, took time.Duration) error {
	cost, fromProvider := harness.ModelCostOf(t.model, resp.Usage)
	t.res.Usage = t.res.Usage.Add(resp.Usage)
	t.res.Cost += cost
	if t.res.TTFTMs == 0 {
		t.res.TTFTMs = resp.TTFT.Milliseconds()
	}
	t.res.StopReason = string(resp.StopReason)
	p := harness.ModelCompleted{Model: t.model.Label(), Reasoning: t.redactReasoning(resp.Reasoning), Text: t.x.h.Redact(resp.Text),
		Usage: harness.UsageOf(resp.Usage), Cost: cost, Skipped: t.redactSkipped(resp.Skipped),
		TTFTMs: resp.TTFT.Milliseconds(), DurationMs: took.Milliseconds(), StopReason: string(resp.StopReason)}
	if fromProvider {
		p.CostFrom = "provider"
	}
	if p.Text != "" {
		t.res.Response = p.Text
	}
	for _, c := range resp.ToolCalls {
		p.ToolCalls = append(p.ToolCalls, harness.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	if len(p.ToolCalls) > 0 {
		// Held for the commit of the first call's start, which follows at once (one fsync'd
		// commit a step fewer); an approval or a hook that takes longer finds it committed
		// after HoldWait. A crash before then loses an answer nothing acted on yet: no tool
		// runs before its start is committed, and the step is redone as after a crash while
		// the model streamed.
		t.x.h.Hold(t.s.ID, t.s.Branch, HoldWait, harness.MustRecord(harness.TypeModelCompleted, t.x.actor(), p))
		return nil
	}
	return t.append(harness.TypeModelCompleted, p)
}

// modelFailed records a failed model call (or a cancel) with a message the user can act on.
func (t *turn) modelFailed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		if cutReason(ctx, err) == api.CutShutdown {
			return t.cancelled("exo stopped while the model was answering")
		}
		return t.cancelled("cancelled by the user while the model was answering")
	}
	msg := t.x.h.Redact(err.Error())
	t.res.Failure = msg
	f := harness.ModelFailed{Model: t.model.Label(), Error: msg + " — nothing was lost; send the prompt again or 'exo run --session " + t.s.Name + "' to retry",
		Kind: "error", Retryable: provider.IsRetryable(err)}
	var pe *provider.Error
	if errors.As(err, &pe) {
		f.Kind = strings.ReplaceAll(pe.Kind.Error(), " ", "_")
		f.Type, f.Message, f.Status = pe.Type, t.x.h.Redact(pe.Detail), pe.Status
		f.RetryAfterMs = pe.RetryAfter.Milliseconds()
	}
	return t.append(harness.TypeModelFailed, f)
}

// delta shows a piece of streamed answer text (already redacted) live.
func (t *turn) delta(text string) {
	if text == "" {
		return
	}
	t.x.h.Publish(harness.Notice{Session: t.s.ID, Delta: text})
	if t.x.opts.OnDelta != nil {
		t.x.opts.OnDelta(t.s.ID, text)
	}
}
