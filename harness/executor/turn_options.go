package executor

import "exo/harness/config"

// TurnOptions tune one turn; zero fields take the executor's Options.
type TurnOptions struct {
	// MaxSteps bounds model calls in this turn.
	MaxSteps int
	// AutoApprove answers every "ask" with approve-once (exo run --yes).
	AutoApprove bool
	// Headless means nobody can answer an approval: "ask" fails closed unless AutoApprove.
	Headless bool
	// Approval is the turn's approval mode; the stricter of it and the executor's applies.
	Approval string
}

// merge fills the zero fields of o from the executor's options.
func (o TurnOptions) merge(x Options) TurnOptions {
	if o.MaxSteps <= 0 {
		o.MaxSteps = x.MaxSteps
	}
	o.AutoApprove = o.AutoApprove || x.AutoApprove
	o.Headless = o.Headless || x.Headless
	o.Approval = config.Stricter(o.Approval, x.Approval)
	return o
}
