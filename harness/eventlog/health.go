package eventlog

import (
	"exo/harness/api"
	"exo/store"
)

// The store's sentinels keep their identity across the wire: api cannot name them itself.
func init() {
	api.RegisterErrorCode(api.CodeCorrupt, store.ErrCorrupt)
	api.RegisterErrorCode(api.CodeNotOwner, store.ErrNotOwner)
	api.RegisterErrorCode(api.CodeUnreachable, store.ErrUnreachable)
	api.RegisterErrorCode(api.CodeForeign, store.ErrForeign)
}

// Damaged returns why the store refuses writes (damage found on open or by Verify), or nil.
func (l *Log) Damaged() error { return l.st.Damaged() }

// ReadOnly returns why the log refuses writes because EXO_HOME cannot be written, or nil.
func (l *Log) ReadOnly() error { return l.st.ReadOnly() }

// Faulted reports whether the store failed inside a transaction (its file damaged under this
// process): the process must close the harness and open it afresh (the daemon exits).
func (l *Log) Faulted() bool { return l.st.Faulted() }
