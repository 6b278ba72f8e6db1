package api

import "time"

// Session is the durable record of a session: its identity and the branches it has had.
// Everything else about it is a projection of its current branch's events.
type Session struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Agent     string    `json:"agent"`
	Branch    string    `json:"branch"`
	Branches  []string  `json:"branches"`
	Parent    string    `json:"parent,omitempty"`
	ParentSeq uint64    `json:"parent_seq,omitempty"`
	Workspace string    `json:"workspace"`
	Created   time.Time `json:"created"`
	// Settings are per-session options (model, network, scope…) kept by the harness.
	Settings map[string]string `json:"settings,omitempty"`
	// Node is the daemon that runs the session when it is another daemon's on a shared store
	// (set when read from that daemon's records; a daemon never stores it for its own).
	Node string `json:"node,omitempty"`
	// Archived hides the session from lists and the siblings pane (exo session archive); it
	// stays whole and usable.
	Archived bool `json:"archived,omitempty"`
	// Deleted marks a removed session (exo session rm): its events stay in the log, but no
	// list or reference finds it any more.
	Deleted bool `json:"deleted,omitempty"`
}
