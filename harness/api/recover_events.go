package api

// TypeTurnInterrupted records, on the next open, that the process running a turn died (killed,
// crashed, power lost) before the turn ended: the session is no longer running.
const TypeTurnInterrupted = "turn.interrupted"

// StatusInterrupted is the status of a session whose turn was cut short by a crash.
const StatusInterrupted Status = "interrupted"

// TurnInterrupted says which turn ended without its process and what was left open.
type TurnInterrupted struct {
	Reason string `json:"reason"`
	// ModelInFlight is the seq of a model.requested that never got its answer (0: none).
	ModelInFlight uint64 `json:"model_in_flight,omitempty"`
	// OpenCalls counts the tool calls closed as interrupted with it.
	OpenCalls int `json:"open_calls,omitempty"`
}

func init() {
	RegisterType(TypeTurnInterrupted, typed(FamilyError, func(p *TurnInterrupted) string { return "interrupted: " + p.Reason }))
	stateAppliers[TypeTurnInterrupted] = func(s *SessionState, e Event, p any) {
		s.Status, s.ModelInFlight = StatusInterrupted, 0
		s.addItem(Item{Seq: e.Seq, Kind: ItemError, Text: "turn interrupted: " + p.(*TurnInterrupted).Reason})
	}
}
