package executor

import "exo/sandbox"

// askUnlessUndoable are the built-in tools that run commands: with no policy of the session's
// or its project's naming them, they run unasked only where the sandbox keeps all they can
// change undoable (see sandboxUndoes), and ask elsewhere.
var askUnlessUndoable = map[string]bool{"bash": true}

// sandboxUndoes says whether everything a command of the session can change is a workspace
// file that exo's snapshots put back on a rewind: its writes are confined to the workspace and
// its private temporary folder (Landlock or a read-only mount namespace) and it has no network
// to act elsewhere with (the session's network setting is off and a network namespace, or
// Landlock's TCP rules, cut it). A session exo cannot read counts as not undoable.
func (x *Executor) sandboxUndoes(sessionID string) bool {
	s, err := x.h.Session(sessionID)
	if err != nil {
		return false
	}
	return undoableUnder(x.h.Capabilities(), s.Settings["network"] == "on")
}

// undoableUnder is sandboxUndoes for a machine's capabilities and a session's network setting.
func undoableUnder(caps sandbox.Capabilities, network bool) bool {
	writesConfined := caps.LandlockABI > 0 || caps.MountNS
	networkCut := !network && (caps.NetNS || caps.LandlockABI >= 4)
	return writesConfined && networkCut
}
