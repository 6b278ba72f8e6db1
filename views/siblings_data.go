package views

// SessionStatus is the live state of a session.
type SessionStatus string

// The states of a session.
const (
	StatusRunning   SessionStatus = "running"   // StatusRunning is working on a turn.
	StatusApproval  SessionStatus = "waiting"   // StatusApproval waits for an approval.
	StatusPending   SessionStatus = "pending"   // StatusPending has a prompt waiting for an executor.
	StatusIdle      SessionStatus = "idle"      // StatusIdle waits for the user.
	StatusFailed    SessionStatus = "failed"    // StatusFailed stopped on an error.
	StatusFinished  SessionStatus = "finished"  // StatusFinished is done.
	StatusSuspended SessionStatus = "suspended" // StatusSuspended is parked.
)

// DriftLevel is the band a drift value falls in.
type DriftLevel int

// The drift bands.
const (
	DriftLow  DriftLevel = iota // DriftLow is below 0.3.
	DriftMid                    // DriftMid is 0.3 up to 0.7.
	DriftHigh                   // DriftHigh is 0.7 and above.
)

// LevelOf returns the band of a drift value.
func LevelOf(drift float64) DriftLevel {
	switch {
	case drift >= 0.7:
		return DriftHigh
	case drift >= 0.3:
		return DriftMid
	}
	return DriftLow
}

// SiblingRow is one session as the siblings pane shows it.
type SiblingRow struct {
	ID        string        // ID is the session id.
	Name      string        // Name is the session name.
	Status    SessionStatus // Status is the live state.
	Model     string        // Model is the model name.
	Scripted  bool          // Scripted marks the scripted model.
	Steps     int           // Steps counts executor steps.
	TokensIn  int           // TokensIn counts prompt tokens.
	TokensOut int           // TokensOut counts completion tokens.
	Cost      float64       // Cost is in US dollars.
	Drift     float64       // Drift is in [0,1].
	Conflicts int           // Conflicts counts files also touched by a sibling.
	Parent    string        // Parent is the id of the session this was forked from.
	Current   bool          // Current marks the session shown in the conversation.
	Clients   int           // Clients counts the apps and tails watching the session.
	Executor  string        // Executor is the executor in force ("" or "default": exo's own).
	Dir       string        // Dir names the project directory the session works for (short).
	// Node is the daemon running the session when it is another machine's (a store shared
	// through etcd): the row is read-only here. Live says that daemon still holds it;
	// Orphaned that it is gone and the session's workspace is not reachable here.
	Node     string
	Live     bool
	Orphaned bool
}

// Remote reports whether the session is another daemon's.
func (r SiblingRow) Remote() bool { return r.Node != "" }

// TakeOverable reports whether the session is another daemon's that may be taken over here:
// its daemon is gone and its workspace is reachable.
func (r SiblingRow) TakeOverable() bool { return r.Remote() && !r.Live && !r.Orphaned }

// SwitchSession asks the app to show another session.
type SwitchSession struct {
	ID string // ID is the session to switch to.
}

// ConflictDiff asks the app to show the diffs of the paths the selected session and the shown
// one both changed.
type ConflictDiff struct {
	ID   string // ID is the selected session.
	Name string // Name is its name.
}

// TakeOver asks the app to make another daemon's session (whose daemon is gone) this one's.
type TakeOver struct {
	ID   string // ID is the selected session.
	Name string // Name is its name.
	// Refused says why the selected session cannot be taken over ("" when it can).
	Refused string
}

// NewSession asks the app to start a new session.
type NewSession struct{}

// ToggleSplit asks the app to show or hide the split view; ID is the
// selected session to show beside the current one.
type ToggleSplit struct {
	ID string // ID is the selected session.
}

// ArchiveRequest asks to archive a session (Refused says why it cannot be, from here).
type ArchiveRequest struct {
	ID, Name, Refused string
}

// DeleteRequest asks to delete a session (Refused says why it cannot be, from here).
type DeleteRequest struct {
	ID, Name, Refused string
}
