package api

import "fmt"

// TypeCompactionCost records the usage and cost of a summarisation call, so budgets count it
// (it is not a model.completed: the summary is no answer in the conversation).
const TypeCompactionCost = "compaction.cost"

// TypeCompactionStarted records, before the call, that a summarisation call is sent: a process
// killed while the summary streams leaves it without its compaction.cost, and the next open
// closes it with an estimated one (the history stays whole; the summary was not applied).
const TypeCompactionStarted = "compaction.started"

// CompactionCost is the usage and cost of the model call that wrote a compaction summary.
type CompactionCost struct {
	Model string  `json:"model"`
	Usage Usage   `json:"usage"`
	Cost  float64 `json:"cost,omitempty"`
	// Cut is set when the summary did not arrive whole (a Cut* reason, or CutKilled when exo
	// died while it streamed): no compaction was applied, the history is as it was.
	Cut string `json:"cut,omitempty"`
	// UsageEstimated is set when Usage and Cost are exo's estimate, not the provider's count.
	UsageEstimated bool `json:"usage_estimated,omitempty"`
}

// Cuts of a summarisation call that are not an answer's: CutKilled when its process died while
// it streamed, CutFailed when it failed before anything streamed.
const (
	CutKilled = "killed"
	CutFailed = "failed"
)

// CompactionStarted is a summarisation call about to be sent: the events it would replace, the
// prompt's size and what that prompt costs at the model's prices (the estimate recorded if the
// call never reports back).
type CompactionStarted struct {
	Model        string  `json:"model"`
	FromSeq      uint64  `json:"from_seq"`
	ToSeq        uint64  `json:"to_seq"`
	PromptTokens int     `json:"prompt_tokens"`
	PromptCost   float64 `json:"prompt_cost,omitempty"`
}

// InterruptedCompaction is the compaction.cost that closes a summarisation call whose process
// died: the prompt's tokens and cost as estimated when it was sent, marked as such.
func InterruptedCompaction(p CompactionStarted) CompactionCost {
	return CompactionCost{Model: p.Model, Usage: Usage{Input: p.PromptTokens}, Cost: p.PromptCost, Cut: CutKilled, UsageEstimated: true}
}

func init() {
	RegisterType(TypeCompactionCost, typed(FamilyModel, func(p *CompactionCost) string {
		s := fmt.Sprintf("summary by %s: %d in, %d out, $%.4f", p.Model, p.Usage.Input, p.Usage.Output, p.Cost)
		if p.UsageEstimated {
			s += " (estimated)"
		}
		if p.Cut != "" {
			s += "; not applied (" + CutLabel(p.Cut) + ")"
		}
		return s
	}))
	RegisterType(TypeCompactionStarted, typed(FamilyModel, func(p *CompactionStarted) string {
		return fmt.Sprintf("summarising @%d..%d with %s (%d tokens)", p.FromSeq, p.ToSeq, p.Model, p.PromptTokens)
	}))
	stateAppliers[TypeCompactionStarted] = func(s *SessionState, e Event, _ any) { s.CompactionInFlight = e.Seq }
	stateAppliers[TypeCompactionCost] = func(s *SessionState, _ Event, p any) {
		c := p.(*CompactionCost)
		s.CompactionInFlight = 0
		s.Usage = s.Usage.Add(c.Usage)
		s.Cost += c.Cost
	}
}
