package harness

import (
	"exo/harness/api"
	"exo/store"
)

// ErrCorrupt means EXO_HOME's database is damaged: opening it was refused, or it refuses writes.
var ErrCorrupt = store.ErrCorrupt

// The store's sentinels keep their identity across the wire: api cannot name them itself.
func init() {
	api.RegisterErrorCode(api.CodeCorrupt, store.ErrCorrupt)
	api.RegisterErrorCode(api.CodeNotOwner, store.ErrNotOwner)
}

// Diagnosis is what Diagnose finds about a database without opening it.
type Diagnosis = store.Diagnosis

// Diagnose describes EXO_HOME's database file without opening or locking it, so that a store
// Open refuses can still be explained (`exo doctor`).
func Diagnose(home string) Diagnosis { return store.Inspect(home, homeEvidence) }

// Damaged returns why the store refuses writes (damage found on open or by Verify), or nil.
func (h *Harness) Damaged() error { return h.st.Damaged() }

// Faulted reports whether the store failed inside a transaction (its file damaged under this
// process): the process must close the harness and open it afresh (the daemon exits).
func (h *Harness) Faulted() bool { return h.st.Faulted() }
