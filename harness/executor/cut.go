package executor

import (
	"context"
	"errors"
	"strconv"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/provider"
)

// ErrStopping is the cause a turn's context is cancelled with when exo stops (the daemon shuts
// down) rather than when the user cancels: a cut answer is then marked as cut by the stop.
var ErrStopping = errors.New("exo is stopping")

// cutReason says why a model call that failed with err was cut: the provider's own error, a
// lost or broken stream, exo stopping, or the user cancelling.
func cutReason(ctx context.Context, err error) string {
	switch {
	case ctx.Err() == nil && providerEnded(err):
		return api.CutProvider
	case ctx.Err() == nil:
		return api.CutStream
	case errors.Is(context.Cause(ctx), ErrStopping):
		return api.CutShutdown
	}
	return api.CutCancelled
}

// providerEnded reports whether err is the provider's own error sent in the stream, rather
// than the stream breaking off.
func providerEnded(err error) bool {
	for _, kind := range []error{provider.ErrServer, provider.ErrOverloaded, provider.ErrRateLimited,
		provider.ErrQuota, provider.ErrBadRequest, provider.ErrAuth} {
		if errors.Is(err, kind) {
			return true
		}
	}
	return false
}

// keepCut records the answer a failed model call had streamed, if it had streamed anything, as
// a model.completed marked cut: its text and reasoning as far as they got, its begun tool calls
// as cut calls (never run), and its usage, the provider's where it had sent one and else exo's
// estimate, marked as such. promptTokens is the prompt's estimate. It reports whether an
// answer was kept.
func (t *turn) keepCut(ctx context.Context, err error, promptTokens int, took time.Duration) (bool, error) {
	pe, ok := provider.PartialOf(err)
	if !ok {
		return false, nil
	}
	r := pe.Response
	if r.Text == "" && provider.ReasoningText(r.Reasoning) == "" && len(r.ToolCalls) == 0 {
		return false, nil // nothing readable arrived: the turn's end says it all
	}
	usage, estimated := r.Usage, false
	if usage.Input == 0 {
		usage.Input, estimated = int64(promptTokens), true
	}
	if out := int64(t.streamedTokens(pe)); usage.Output < out {
		usage.Output, estimated = out, true
	}
	cost, fromProvider := harness.ModelCostOf(t.model, usage)
	t.res.Usage = t.res.Usage.Add(usage)
	t.res.Cost += cost
	if t.res.TTFTMs == 0 {
		t.res.TTFTMs = r.TTFT.Milliseconds()
	}
	p := harness.ModelCompleted{Model: t.model.Label(), Reasoning: t.redactReasoning(r.Reasoning), Text: t.x.h.Redact(r.Text),
		Usage: harness.UsageOf(usage), Cost: cost, Skipped: t.redactSkipped(r.Skipped),
		TTFTMs: r.TTFT.Milliseconds(), DurationMs: took.Milliseconds(), StopReason: "cut",
		Cut: cutReason(ctx, err), UsageEstimated: estimated}
	if fromProvider && !estimated {
		p.CostFrom = "provider"
	}
	for i, c := range r.ToolCalls {
		args := ""
		if i < len(pe.Args) {
			args = pe.Args[i]
		}
		p.CutCalls = append(p.CutCalls, api.NewCutCall(c.ID, c.Name, t.x.h.Redact(args)))
	}
	if p.Text != "" {
		t.res.Response = p.Text
	}
	return true, t.append(harness.TypeModelCompleted, p)
}

// streamedTokens estimates the output tokens of what a cut call had streamed.
func (t *turn) streamedTokens(pe *provider.PartialError) int {
	text := pe.Response.Text + provider.ReasoningText(pe.Response.Reasoning)
	for _, a := range pe.Args {
		text += a
	}
	for _, c := range pe.Response.ToolCalls {
		text += c.Name
	}
	n, _ := provider.CountTokens(t.model.ModelID, text)
	return n
}

// cutNote is what the next prompt says after an answer that was cut, so that the model knows
// its previous answer is unfinished and which calls it had begun were not run.
func cutNote(p *harness.ModelCompleted) string {
	why := "the user cancelled it"
	switch p.Cut {
	case api.CutStream:
		why = "the connection to the model was lost"
	case api.CutShutdown:
		why = "exo stopped"
	case api.CutProvider:
		why = "the model's provider ended it with an error"
	case api.CutKilled:
		why = "exo was killed"
	}
	s := "[harness: your previous answer was cut off before you finished it (" + why + "); it is kept above as far as it got"
	if p.Text == "" {
		s = "[harness: your previous answer was cut off (" + why + ") before you had written any text"
	}
	if len(p.CutCalls) > 0 {
		s += "; the tool calls you had begun were not run:"
		for _, c := range p.CutCalls {
			s += " " + c.Name + " (" + strconv.Itoa(c.Bytes) + " bytes of arguments)"
		}
	}
	return s + "]"
}
