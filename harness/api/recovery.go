package api

// RecoveryReport says what Recover found left over by a process that died.
type RecoveryReport struct {
	// Completed lists journaled restores that were done again to the end.
	Completed []string `json:"completed,omitempty"`
	// RolledBack lists unfinished fork copies that were removed.
	RolledBack []string `json:"rolled_back,omitempty"`
	// Interrupted lists sessions whose turn was cut short, now recorded as interrupted.
	Interrupted []string `json:"interrupted,omitempty"`
	// Problems lists what could not be recovered (it is tried again on the next open).
	Problems []string `json:"problems,omitempty"`
}

// Empty reports whether nothing was left over.
func (r RecoveryReport) Empty() bool {
	return len(r.Completed)+len(r.RolledBack)+len(r.Interrupted)+len(r.Problems) == 0
}
