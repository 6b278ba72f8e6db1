package eventlog

import (
	"errors"
	"fmt"

	"exo/harness/api"
	"exo/store"
	"exo/store/failpoint"
)

// ErrBranchMoved means a session was rewound while a writer still held its old branch.
var ErrBranchMoved = errors.New("session moved to another branch (it was rewound)")

// Append adds records to a session's current branch in one transaction.
func (l *Log) Append(sessionID string, recs ...store.Record) ([]api.Event, error) {
	return l.AppendOn(sessionID, "", recs...)
}

// AppendOn adds records to a session's branch, failing with ErrBranchMoved if the session's
// current branch is no longer branch (empty branch means whatever is current).
func (l *Log) AppendOn(sessionID, branch string, recs ...store.Record) ([]api.Event, error) {
	return l.AppendWith(sessionID, branch, nil, recs...)
}

// AppendWith is AppendOn that also runs inTx (when not nil) in the same transaction. The
// session's held records (see Hold) go first, in the same transaction. On a store whose commits
// are bounded (etcd) a batch too big for one is committed in several, in order, each a
// consistent prefix (inTx with the last); on error the events committed so far are returned with
// it, and published.
func (l *Log) AppendWith(sessionID, branch string, inTx func(*store.Tx) error, recs ...store.Record) ([]api.Event, error) {
	return l.appendHeld(sessionID, branch, inTx, recs)
}

// appendLocked appends records as AppendWith does, without the held ones and without
// publishing; the caller holds the session's append lock. It returns the events committed and
// the branch they are on.
func (l *Log) appendLocked(sessionID, branch string, inTx func(*store.Tx) error, recs []store.Record) ([]api.Event, string, error) {
	if redact := l.opts.Redact; redact != nil {
		// No secret value enters the log, whoever wrote the record.
		for i := range recs {
			recs[i].Data = redact(recs[i].Data)
		}
	}
	batches := l.st.Batches(recs)
	if len(batches) == 0 {
		batches = [][]store.Record{nil}
	}
	var out []api.Event
	for i, b := range batches {
		last := inTx
		if i < len(batches)-1 {
			last = nil
		}
		evs, on, err := l.appendBatch(sessionID, branch, last, b)
		if err != nil {
			return out, on, err
		}
		branch = on
		out = append(out, evs...)
	}
	return out, branch, nil
}

// afterAppend publishes committed events and advances the cached projection.
func (l *Log) afterAppend(sessionID, branch string, evs []api.Event) {
	l.Committed(sessionID, branch, evs)
	for _, e := range evs {
		failpoint.Hit("after." + e.Type) // tests kill exo right after an event is durable
	}
}

// appendBatch appends records that fit one commit to the session's branch (failing with
// ErrBranchMoved if it is no longer branch, when branch is given) and runs inTx in the same
// transaction. It returns the events and the branch they are on.
func (l *Log) appendBatch(sessionID, branch string, inTx func(*store.Tx) error, recs []store.Record) ([]api.Event, string, error) {
	var evs []api.Event
	cost := store.AppendCost(recs...)
	if inTx != nil {
		cost.Ops += 8 // a few records besides: a larger write is refused and runs alone
	}
	// Appends of concurrent sessions (and of this one's concurrent writers) share commits on a
	// store that groups them (etcd): each returns once its own is committed.
	err := l.st.UpdateGrouped(cost, func(tx *store.Tx) error {
		s, err := GetSession(tx, sessionID)
		if err != nil {
			return err
		}
		if branch != "" && s.Branch != branch {
			return fmt.Errorf("append to %s: %w", s.Name, ErrBranchMoved)
		}
		branch = s.Branch
		stored, err := tx.Append(branch, recs...)
		if evs = EventsOf(stored); err != nil || inTx == nil {
			return err
		}
		return inTx(tx)
	})
	if err != nil {
		return nil, branch, fmt.Errorf("append to session %s: %w", sessionID, err)
	}
	return evs, branch, nil
}

// committed advances the cached projection of a branch, checkpoints it when due, and tells
// subscribers.
func (l *Log) Committed(sessionID, branch string, evs []api.Event) {
	if len(evs) == 0 {
		return
	}
	l.mu.Lock()
	st := l.states[branch]
	var blob []byte
	var at uint64
	if st != nil && st.Head+1 == evs[0].Seq {
		before := st.Head / l.opts.CheckpointEvery
		for _, e := range evs {
			st.Apply(e)
		}
		l.sizeState(branch)
		if st.Head/l.opts.CheckpointEvery != before {
			blob, at = EncodeState(st), st.Head
		}
	} else if st != nil {
		l.dropState(branch) // out of step: reload lazily
	}
	l.mu.Unlock()
	if blob != nil {
		l.putCheckpoint(branch, at, blob)
	}
	l.broker.publish(api.Notice{Session: sessionID, Events: evs})
}

// putCheckpoint stores a Session projection checkpoint, then prunes the branch's older ones
// that retention does not keep (the newest few and a thinning ladder of older ones: see
// store.PruneCheckpoints). One that cannot be stored, or a prune that fails, costs replay or
// space, so it fails nothing, but it is logged.
func (l *Log) putCheckpoint(branch string, at uint64, blob []byte) {
	if err := l.st.PutCheckpoint(SessionProjection, branch, at, blob); err != nil {
		l.log().Warn("checkpoint not stored: opening the session replays from an earlier one",
			"branch", branch, "seq", at, "bytes", len(blob), "error", err)
		return
	}
	failpoint.Hit("checkpoint.stored") // tests kill exo between a checkpoint and its prune
	if l.keepCheckpoints {
		return
	}
	if _, err := l.st.PruneCheckpoints(SessionProjection, branch); err != nil {
		l.log().Warn("older checkpoints not pruned: they keep taking space until the next checkpoint prunes them",
			"branch", branch, "seq", at, "error", err)
	}
}
