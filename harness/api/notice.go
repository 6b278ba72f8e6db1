package api

import "time"

// Notice is what subscribers receive: committed events of a session, or a live delta.
type Notice struct {
	Session string
	Events  []Event
	// Delta is streaming text of a model answer in progress (not stored event by event).
	Delta string
	// Reasoning is streaming reasoning of a model answer in progress, shown as "thinking".
	Reasoning string
	// SoFar marks Delta and Reasoning as the answer streaming on Session from its start, sent
	// to a client that attaches mid-answer: they replace what it had shown of that answer, and
	// the pieces after this notice add to them as usual.
	SoFar bool
	// Output is live sandbox output (already sanitised for display).
	Output []byte
	// Lagged is set on the first notice after this subscriber missed some: resync from the log.
	Lagged bool
	// Turn tells that a turn started or ended on the session (published by whoever runs turns).
	Turn *TurnNotice
	// Peer, when set, names the daemon that runs the session elsewhere on a shared store: the
	// notice reports what that daemon did (see WatchPeers); nothing here runs it.
	Peer string
	// Clients, when set, is how many clients watch each session (published by the daemon when
	// it changes; Session is empty).
	Clients map[string]int
	// Progress, when set, is long work going on in the session (its first snapshot of a big
	// workspace), reported once it has taken more than half a second.
	Progress *Progress
	// Governance, when set, is the session's governance summary, published when it changed
	// (after events that touch files, set the scope or record a conflict).
	Governance *GovernanceSummary
	// Updated, when set, is the session's record after a change that is not an event (a setting
	// such as its model, budgets or approval mode), published by whoever changed it, so that
	// clients folding the stream need not read the session again.
	Updated *Session
	// Store, when set, says whether the daemon's shared store (etcd) answers, published by the
	// daemon when that changes (Session is empty): clients show it while it does not.
	Store *StoreState
}

// StoreState is whether a daemon's shared store answers: Up, else since when and why not.
type StoreState struct {
	Up    bool      `json:"up"`
	Since time.Time `json:"since"`
	Why   string    `json:"why,omitempty"`
}

// GovernanceSummary is a session's governance at a glance, as the siblings pane shows it: its
// drift from its scope (in [0,1]) and how many conflicts with other sessions it has.
type GovernanceSummary struct {
	Drift     float64 `json:"drift"`
	Conflicts int     `json:"conflicts"`
}

// Progress is long work going on in a session, as clients show it: a snapshot staging Done of
// Total files (Total -1 while the workspace is scanned). Finished ends it.
type Progress struct {
	Task     string `json:"task"`
	Done     int    `json:"done"`
	Total    int    `json:"total"`
	Finished bool   `json:"finished,omitempty"`
}
