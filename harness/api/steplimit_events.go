package api

import (
	"fmt"
)

// TypeTurnStepLimit records a turn stopped at its step limit (exo run --max-steps, the
// executor's default): neither the user's cancel nor a failure; the next prompt carries on.
const TypeTurnStepLimit = "turn.step_limit"

// StopStepLimit is the StopReason of a turn that reached its step limit.
const StopStepLimit = "step_limit"

// TurnStepLimit says at which limit a turn stopped.
type TurnStepLimit struct {
	// Limit is the most model calls the turn was allowed (all made).
	Limit int `json:"limit"`
}

// stepLimitText says how a turn at its step limit ended.
func stepLimitText(p *TurnStepLimit) string {
	return fmt.Sprintf("stopped at the step limit (%d model calls in one turn)", p.Limit)
}

func init() {
	RegisterType(TypeTurnStepLimit, typed(FamilySession, stepLimitText))
	stateAppliers[TypeTurnStepLimit] = func(s *SessionState, e Event, p any) {
		s.Status, s.ModelInFlight = StatusIdle, 0
		s.dropApprovals()
		s.addItem(Item{Seq: e.Seq, Kind: ItemNotice, Text: "turn " + stepLimitText(p.(*TurnStepLimit))})
	}
}
