package eventlog

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"exo/harness/api"
	"exo/store"
)

// Held records let a step's events share one durable commit: a tool call's tool.started is
// held while the tool runs, its tool.completed while the workspace is snapshotted, and the
// snapshot's append commits all three in one transaction (one fsync) before the result is
// returned. Held records keep the log's order: any append to the session commits them first, in
// the same transaction; a crash loses them with the step that had not returned yet.

// holds is the harness's held records, by session, and the lock that orders a session's appends
// with them.
type holds struct {
	mu    sync.Mutex
	by    map[string]*heldSet
	locks map[string]*sync.Mutex
}

// heldSet is a session's held records.
type heldSet struct {
	branch string
	recs   []store.Record
	// gen counts the times the set was taken, so that a timer of an earlier set commits nothing.
	gen   uint64
	timer *time.Timer
	// err is the first failure to commit held records since the last Release.
	err error
}

// sessionLock returns the lock that orders the appends to a session.
func (hs *holds) sessionLock(sessionID string) *sync.Mutex {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.locks == nil {
		hs.locks = map[string]*sync.Mutex{}
	}
	lk := hs.locks[sessionID]
	if lk == nil {
		lk = &sync.Mutex{}
		hs.locks[sessionID] = lk
	}
	return lk
}

// take removes and returns a session's held records and their branch.
func (hs *holds) take(sessionID string) ([]store.Record, string) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	set := hs.by[sessionID]
	if set == nil || len(set.recs) == 0 {
		return nil, ""
	}
	recs, branch := set.recs, set.branch
	set.recs, set.branch = nil, ""
	set.gen++
	if set.timer != nil {
		set.timer.Stop()
		set.timer = nil
	}
	return recs, branch
}

// failed notes that held records of a session could not be committed.
func (hs *holds) failed(sessionID string, err error) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	set := hs.set(sessionID)
	if set.err == nil {
		set.err = err
	}
}

// set returns a session's held set, creating it (hs.mu held).
func (hs *holds) set(sessionID string) *heldSet {
	if hs.by == nil {
		hs.by = map[string]*heldSet{}
	}
	set := hs.by[sessionID]
	if set == nil {
		set = &heldSet{}
		hs.by[sessionID] = set
	}
	return set
}

// Hold keeps records for a session's branch uncommitted, after any it already holds: the next
// append to the session commits them first in its own transaction, Release commits them, and
// within > 0 bounds how long they wait (then they are committed on their own, so that a long
// tool's start is durable while it runs). A crash before then loses them: hold only what may be
// lost with a step whose outcome nobody was told yet.
func (l *Log) Hold(sessionID, branch string, within time.Duration, recs ...store.Record) {
	if len(recs) == 0 {
		return
	}
	hs := &l.held
	hs.mu.Lock()
	set := hs.set(sessionID)
	if len(set.recs) > 0 && set.branch != branch {
		hs.mu.Unlock()
		_ = l.Release(sessionID) // held on another branch: committed (or refused) before these
		hs.mu.Lock()
		set = hs.set(sessionID)
	}
	set.branch = branch
	set.recs = append(set.recs, recs...)
	if within > 0 && set.timer == nil {
		gen := set.gen
		set.timer = time.AfterFunc(within, func() { l.releaseGen(sessionID, gen) })
	}
	hs.mu.Unlock()
}

// releaseGen commits a session's held records if they are still those of generation gen.
func (l *Log) releaseGen(sessionID string, gen uint64) {
	l.held.mu.Lock()
	set := l.held.by[sessionID]
	current := set != nil && set.gen == gen && len(set.recs) > 0
	l.held.mu.Unlock()
	if current {
		l.commitHeld(sessionID)
	}
}

// Release commits a session's held records now and returns the first failure to commit held
// records of the session since the last Release (by this call, an append that carried them, or
// their deadline).
func (l *Log) Release(sessionID string) error {
	l.commitHeld(sessionID)
	l.held.mu.Lock()
	defer l.held.mu.Unlock()
	set := l.held.by[sessionID]
	if set == nil {
		return nil
	}
	err := set.err
	set.err = nil
	if len(set.recs) == 0 && set.timer == nil {
		delete(l.held.by, sessionID)
	}
	return err
}

// commitHeld commits a session's held records on their own.
func (l *Log) commitHeld(sessionID string) {
	lk := l.held.sessionLock(sessionID)
	lk.Lock()
	held, branch := l.held.take(sessionID)
	if len(held) == 0 {
		lk.Unlock()
		return
	}
	evs, on, err := l.appendLocked(sessionID, branch, nil, held)
	lk.Unlock()
	l.afterAppend(sessionID, on, evs)
	if err != nil {
		l.held.failed(sessionID, err)
	}
}

// appendHeld appends records after the session's held ones, in the same transaction, with the
// session's append lock held; it returns the events of recs (not those of the held records) and
// publishes them all.
func (l *Log) appendHeld(sessionID, branch string, inTx func(*store.Tx) error, recs []store.Record) ([]api.Event, error) {
	lk := l.held.sessionLock(sessionID)
	lk.Lock()
	held, heldOn := l.held.take(sessionID)
	if len(held) > 0 && branch != "" && branch != heldOn {
		// Held on another branch than this append's: committed first, on their own.
		evs, on, err := l.appendLocked(sessionID, heldOn, nil, held)
		l.afterAppend(sessionID, on, evs)
		if err != nil {
			l.held.failed(sessionID, err)
		}
		held = nil
	}
	if len(held) == 0 {
		evs, on, err := l.appendLocked(sessionID, branch, inTx, recs)
		lk.Unlock()
		l.afterAppend(sessionID, on, evs)
		return evs, err
	}
	all := append(append(make([]store.Record, 0, len(held)+len(recs)), held...), recs...)
	evs, on, err := l.appendLocked(sessionID, heldOn, inTx, all)
	if err != nil && len(evs) == 0 && branch == "" && errors.Is(err, ErrBranchMoved) {
		// The session moved off the held records' branch: they are refused, as they would have
		// been on their own; this append goes to the session's branch as asked.
		l.held.failed(sessionID, err)
		evs, on, err = l.appendLocked(sessionID, "", inTx, recs)
		lk.Unlock()
		l.afterAppend(sessionID, on, evs)
		return evs, err
	}
	lk.Unlock()
	l.afterAppend(sessionID, on, evs)
	if len(evs) < len(held) {
		l.held.failed(sessionID, fmt.Errorf("commit held events: %w", err))
		return nil, err
	}
	return evs[len(held):], err
}

// ReleaseAll commits every session's held records (the harness is closing).
func (l *Log) ReleaseAll() {
	l.held.mu.Lock()
	var ids []string
	for id, set := range l.held.by {
		if len(set.recs) > 0 {
			ids = append(ids, id)
		}
	}
	l.held.mu.Unlock()
	for _, id := range ids {
		if err := l.Release(id); err != nil {
			l.log().Warn("held events not committed at close", "session", id, "error", err)
		}
	}
}
