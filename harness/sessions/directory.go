package sessions

import (
	"exo/harness/eventlog"
	"exo/harness/sealed"
	"exo/store"
)

// Directory is the sessions service: the session records and their branches, kept in the event
// log. It creates, finds, lists, forks (the log's half), rewinds (the log's half), archives and
// verifies sessions, lists and takes over other daemons' sessions, and reads the mentions a
// prompt attaches from a session's workspace.
type Directory struct {
	log   *eventlog.Log
	st    *store.Store
	sec   *sealed.Secrets
	home  string
	hooks Hooks
}

// Hooks are what the directory needs from the harness's recovery, which sits above it: given
// at construction, each may be nil (then it finds nothing).
type Hooks struct {
	// Interrupted returns the records that close a turn a dead daemon left running on branch
	// (TakeOver appends them).
	Interrupted func(branch, reason string) ([]store.Record, error)
	// TakenOver is the reason Interrupted records when this daemon takes over a session of
	// daemon node.
	TakenOver func(node string) string
	// Unfinished lists the journaled operations still in progress, as problems of a whole-store
	// Verify.
	Unfinished func() []store.Problem
}

// New returns the directory of the sessions in log; sec keeps secrets out of what mentions
// attach, and home is EXO_HOME.
func New(log *eventlog.Log, sec *sealed.Secrets, hooks Hooks) *Directory {
	st := log.Store()
	return &Directory{log: log, st: st, sec: sec, home: st.Home(), hooks: hooks}
}
