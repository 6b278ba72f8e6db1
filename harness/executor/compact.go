package executor

import (
	"context"
	"errors"
	"exo/harness/api"
	"fmt"
	"strings"

	"exo/harness"
	"exo/harness/provider"
)

// Compaction kinds recorded in compaction.applied.
const (
	CompactPrune     = "prune"
	CompactSummarize = "summarize"
)

// DefaultPruneThreshold is how many tokens of tool results the prompt view may hold before older
// outputs are pruned.
const DefaultPruneThreshold = 20_000

// ErrNothingToCompact means a manual compaction found nothing before the last two user turns.
var ErrNothingToCompact = api.ErrNothingToCompact

// summaryPrompt asks the model for a summary that can stand in for the history.
const summaryPrompt = `Summarise the conversation above so that you can continue the work from the summary alone: the user's goals and constraints, what was done (files read and changed, commands run and their outcomes), decisions and why, open problems, and the next steps. Be concrete (paths, names, numbers); do not call tools; answer with the summary only.`

// compactor runs compaction for one session with its model.
type compactor struct {
	x      *Executor
	s      *harness.Session
	prov   provider.Provider
	model  harness.ModelSpec
	system string
	fixed  int // tokens of the system prompt and tool schemas
}

// newCompactor prepares compaction of a session's current branch.
func (x *Executor) newCompactor(s *harness.Session, prov provider.Provider, model harness.ModelSpec, system string) *compactor {
	c := &compactor{x: x, s: s, prov: prov, model: model, system: system}
	n, _ := provider.CountTokens(model.ModelID, system)
	c.fixed = n
	for _, t := range x.toolSpecs() {
		k, _ := provider.CountTokens(model.ModelID, t.Name+t.Description+string(t.Schema))
		c.fixed += k
	}
	return c
}

// limit is the prompt size above which the history is summarised: the context window minus the
// output reserve; 0 means no limit is known.
func (c *compactor) limit() int {
	if c.model.ContextWindow <= 0 {
		return 0
	}
	reserve := c.x.opts.OutputReserve
	if reserve <= 0 {
		reserve = c.model.MaxOutput
	}
	if reserve <= 0 || reserve > c.model.ContextWindow/2 {
		reserve = c.model.ContextWindow / 4
	}
	return c.model.ContextWindow - reserve
}

// run prunes when tool results exceed the threshold and summarises when the prompt would not
// fit; force does both whenever there is anything before the last two user turns.
func (c *compactor) run(ctx context.Context, force bool) (CompactionReport, error) {
	v, err := c.x.ViewOf(c.s.Branch, c.model.ModelID)
	if err != nil {
		return CompactionReport{}, err
	}
	rep := CompactionReport{TokensBefore: v.Tokens + c.fixed}
	if err := c.prune(v, force, &rep); err != nil {
		return rep, err
	}
	if v, err = c.x.ViewOf(c.s.Branch, c.model.ModelID); err != nil {
		return rep, err
	}
	if lim := c.limit(); force || (lim > 0 && v.Tokens+c.fixed > lim) {
		if c.x.opts.Hooks != nil {
			trigger := "auto"
			if force {
				trigger = "manual"
			}
			if stop := c.x.opts.Hooks.PreCompact(ctx, c.s, trigger); stop.Stop {
				stop.Event = "PreCompact"
				return rep, &hookStopError{stop}
			}
		}
		if err := c.summarize(ctx, v, &rep); err != nil {
			return rep, err
		}
		if rep.Summarized {
			c.x.rerunSessionStart(c.s.ID, "compact") // as Claude Code does after a compaction
		}
		if v, err = c.x.ViewOf(c.s.Branch, c.model.ModelID); err != nil {
			return rep, err
		}
	}
	if lim := c.limit(); lim > 0 && v.Tokens+c.fixed > lim {
		if err := c.pruneWithinTurns(v, &rep); err != nil {
			return rep, err
		}
		if v, err = c.x.ViewOf(c.s.Branch, c.model.ModelID); err != nil {
			return rep, err
		}
	}
	rep.TokensAfter = v.Tokens + c.fixed
	return rep, nil
}

// keepResults is how many of the newest tool results a prune inside the last two user turns
// keeps whole.
const keepResults = 4

// pruneWithinTurns is the last resort of a long turn (many steps after one prompt) that still
// does not fit: it prunes tool outputs inside the last two user turns too, all but the newest
// keepResults, rather than let the model call fail.
func (c *compactor) pruneWithinTurns(v *View, rep *CompactionReport) error {
	kept, i := 0, len(v.Messages)-1
	for ; i >= 0 && kept < keepResults; i-- {
		if v.Messages[i].Role == provider.RoleTool {
			kept++
		}
	}
	if i < 0 {
		return nil
	}
	to := v.meta[i+1].seq - 1
	if to <= v.comp.prunedTo || v.prunableTokens(to) == 0 {
		return nil
	}
	rep.Pruned = true
	return c.record(harness.CompactionApplied{Kind: CompactPrune, FromSeq: v.comp.prunedTo + 1, ToSeq: to, Tokens: v.Tokens + c.fixed})
}

// prune records a prune of the tool outputs before the last two user turns.
func (c *compactor) prune(v *View, force bool, rep *CompactionReport) error {
	threshold := c.x.opts.PruneThreshold
	if threshold <= 0 {
		threshold = DefaultPruneThreshold
	}
	to := v.keepFrom()
	if to == 0 || (!force && v.comp.toolTokens <= threshold) {
		return nil
	}
	to--
	if to <= v.comp.prunedTo || v.prunableTokens(to) == 0 {
		return nil
	}
	rep.Pruned = true
	return c.record(harness.CompactionApplied{Kind: CompactPrune, FromSeq: v.comp.prunedTo + 1, ToSeq: to, Tokens: v.Tokens + c.fixed})
}

// summarize asks the model to summarise the history before the last two user turns and
// records the summary.
func (c *compactor) summarize(ctx context.Context, v *View, rep *CompactionReport) error {
	to := v.keepFrom()
	if to == 0 {
		return nil
	}
	to--
	k := v.prefixLen(to)
	if to <= v.comp.summarizedTo || k == 0 || (k == 1 && v.comp.summarizedTo > 0) {
		return nil
	}
	from := v.meta[0].seq
	if v.comp.summarizedTo > 0 {
		from = 1
	}
	msgs := append([]provider.Message(nil), v.Messages[:k]...)
	msgs = append(msgs, provider.Message{Role: provider.RoleUser, Text: summaryPrompt})
	before := v.Tokens + c.fixed
	// The call is recorded before it is sent: a kill while the summary streams leaves a
	// compaction.started that the next open closes with the prompt's estimated cost.
	prompt := c.fixed + v.replacedTokens(k) + v.count(summaryPrompt)
	if _, err := c.x.h.AppendOn(c.s.ID, c.s.Branch, harness.MustRecord(api.TypeCompactionStarted, c.x.actor(), api.CompactionStarted{
		Model: c.model.Label(), FromSeq: from, ToSeq: to, PromptTokens: prompt,
		PromptCost: harness.ModelCost(c.model, provider.Usage{Input: int64(prompt)})})); err != nil {
		return err
	}
	summary, usage, err := c.ask(ctx, msgs)
	if err != nil {
		if rerr := c.failedCost(ctx, err, prompt); rerr != nil {
			return rerr
		}
		return fmt.Errorf("summarise the history of %s: %w", c.s.Name, err)
	}
	cost := harness.CompactionCost{Model: c.model.Label(), Cost: harness.ModelCost(c.model, usage),
		Usage: harness.UsageOf(usage)}
	if n, old := v.count(summaryText(from, to, summary)), v.replacedTokens(k); n >= old {
		// A summary no smaller than what it replaces would make the prompt bigger: keep the
		// history (the call's cost is still recorded).
		rep.NoGain = fmt.Sprintf("the summary (%d tokens) is not smaller than the %d tokens of history it would replace", n, old)
		_, err = c.x.h.AppendOn(c.s.ID, c.s.Branch, harness.MustRecord(harness.TypeCompactionCost, c.x.actor(), cost))
		return err
	}
	rep.Summarized = true
	_, err = c.x.h.AppendOn(c.s.ID, c.s.Branch,
		harness.MustRecord(harness.TypeCompactionApplied, c.x.actor(), harness.CompactionApplied{Kind: CompactSummarize, FromSeq: from, ToSeq: to, Summary: summary, Tokens: before}),
		harness.MustRecord(harness.TypeCompactionCost, c.x.actor(), cost))
	return err
}

// failedCost records the cost of a summarisation call that failed (the summary was not applied):
// what the provider counted of a cut stream, else an estimate, marked as such; an error before
// anything streamed costs nothing.
func (c *compactor) failedCost(ctx context.Context, err error, prompt int) error {
	p := api.CompactionCost{Model: c.model.Label(), Cut: api.CutFailed}
	if pe, ok := provider.PartialOf(err); ok {
		u := pe.Response.Usage
		if u.Input == 0 {
			u.Input, p.UsageEstimated = int64(prompt), true
		}
		if n, _ := provider.CountTokens(c.model.ModelID, pe.Response.Text+provider.ReasoningText(pe.Response.Reasoning)); u.Output < int64(n) {
			u.Output, p.UsageEstimated = int64(n), true
		}
		p.Usage, p.Cost, p.Cut = harness.UsageOf(u), harness.ModelCost(c.model, u), cutReason(ctx, err)
	}
	_, aerr := c.x.h.AppendOn(c.s.ID, c.s.Branch, harness.MustRecord(harness.TypeCompactionCost, c.x.actor(), p))
	return aerr
}

// ask makes the summarisation call (a separate model call, under the scheduler's cap).
func (c *compactor) ask(ctx context.Context, msgs []provider.Message) (string, provider.Usage, error) {
	maxOut := c.model.MaxOutput
	if maxOut <= 0 || maxOut > 4096 {
		maxOut = 4096
	}
	msgs, err := c.x.loadImages(c.model, msgs)
	if err != nil {
		return "", provider.Usage{}, err
	}
	req := provider.Request{Model: c.model.ModelID, System: c.system, Messages: msgs, Tools: c.x.sessionTools(ctx, c.s.ID),
		MaxOutputTokens: maxOut, CachePrefix: true, CacheKey: c.s.ID}
	release, err := c.x.slot(ctx)
	if err != nil {
		return "", provider.Usage{}, err
	}
	resp, err := c.prov.Stream(ctx, req, func(provider.Delta) {})
	release()
	if err != nil {
		return "", resp.Usage, err
	}
	text := strings.TrimSpace(c.x.h.Redact(resp.Text))
	if text == "" {
		return "", resp.Usage, errors.New("the model returned no summary")
	}
	return text, resp.Usage, nil
}

// record appends a compaction.applied event on the session's branch.
func (c *compactor) record(p harness.CompactionApplied) error {
	_, err := c.x.h.AppendOn(c.s.ID, c.s.Branch, harness.MustRecord(harness.TypeCompactionApplied, c.x.actor(), p))
	return err
}

// Compact compacts a session's prompt view by hand (exo compact, /compact): it prunes old tool
// outputs and summarises everything before the last two user turns. It fails with ErrBusy while
// a turn runs and with ErrNothingToCompact when there is nothing to do.
func (x *Executor) Compact(ctx context.Context, sessionID string) (CompactionReport, error) {
	if !x.claim(sessionID) {
		return CompactionReport{}, ErrBusy
	}
	defer x.release(sessionID)
	t, err := x.newTurn(sessionID)
	if err != nil {
		return CompactionReport{}, err
	}
	rep, err := x.newCompactor(t.s, t.prov, t.model, t.system).run(ctx, true)
	if err == nil && !rep.Pruned && !rep.Summarized {
		err = ErrNothingToCompact
		if rep.NoGain != "" {
			err = fmt.Errorf("%s; the prompt is left as it was (%w)", rep.NoGain, ErrNothingToCompact)
		}
	}
	return rep, err
}

// compact is the automatic check before each model call of a turn. A failed summary does not
// end the turn: the model is called with the uncompacted prompt. After a summary the
// SessionStart hooks run again (source compact) and their context renews the system prompt; a
// PreCompact or SessionStart hook's stop is returned for the turn to end.
func (t *turn) compact(ctx context.Context) HookStop {
	if t.x.opts.NoCompaction {
		return HookStop{}
	}
	if t.comp == nil {
		t.comp = t.x.newCompactor(t.s, t.prov, t.model, t.system)
	}
	rep, err := t.comp.run(ctx, false)
	var hs *hookStopError
	switch {
	case errors.As(err, &hs):
		return hs.stop
	case err != nil && ctx.Err() == nil:
		t.compactErr = err.Error()
	}
	if rep.Summarized {
		if err := t.startSystem(ctx); err != nil {
			t.compactErr = err.Error() // the prompt keeps the system it had
		}
		t.comp.system = t.system
		return t.startStop
	}
	return HookStop{}
}

// hookStopError is a hook's continue:false met inside a step (a compaction).
type hookStopError struct{ stop HookStop }

// Error words the stop for the user.
func (e *hookStopError) Error() string { return e.stop.message() }

// CompactSession is Compact for callers without a context of their own (the TUI's /compact).
func (x *Executor) CompactSession(sessionID string) (CompactionReport, error) {
	return x.Compact(context.Background(), sessionID)
}
