package api

import "fmt"

// TypeCompactionCost records the usage and cost of a summarisation call, so budgets count it
// (it is not a model.completed: the summary is no answer in the conversation).
const TypeCompactionCost = "compaction.cost"

// CompactionCost is the usage and cost of the model call that wrote a compaction summary.
type CompactionCost struct {
	Model string  `json:"model"`
	Usage Usage   `json:"usage"`
	Cost  float64 `json:"cost,omitempty"`
}

func init() {
	RegisterType(TypeCompactionCost, typed(FamilyModel, func(p *CompactionCost) string {
		return fmt.Sprintf("summary by %s: %d in, %d out, $%.4f", p.Model, p.Usage.Input, p.Usage.Output, p.Cost)
	}))
}
