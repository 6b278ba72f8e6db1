package harness

import (
	"errors"
	"fmt"

	"exo/store"
	"exo/store/failpoint"
)

// ErrBranchMoved means a session was rewound while a writer still held its old branch.
var ErrBranchMoved = errors.New("session moved to another branch (it was rewound)")

// Append adds records to a session's current branch in one transaction.
func (h *Harness) Append(sessionID string, recs ...store.Record) ([]Event, error) {
	return h.AppendOn(sessionID, "", recs...)
}

// AppendOn adds records to a session's branch, failing with ErrBranchMoved if the session's
// current branch is no longer branch (empty branch means whatever is current).
func (h *Harness) AppendOn(sessionID, branch string, recs ...store.Record) ([]Event, error) {
	return h.appendWith(sessionID, branch, nil, recs...)
}

// appendWith is AppendOn that also runs inTx (when not nil) in the same transaction. The
// session's held records (see Hold) go first, in the same transaction. On a store whose commits
// are bounded (etcd) a batch too big for one is committed in several, in order, each a
// consistent prefix (inTx with the last); on error the events committed so far are returned with
// it, and published.
func (h *Harness) appendWith(sessionID, branch string, inTx func(*store.Tx) error, recs ...store.Record) ([]Event, error) {
	return h.appendHeld(sessionID, branch, inTx, recs)
}

// appendLocked appends records as appendWith does, without the held ones and without
// publishing; the caller holds the session's append lock. It returns the events committed and
// the branch they are on.
func (h *Harness) appendLocked(sessionID, branch string, inTx func(*store.Tx) error, recs []store.Record) ([]Event, string, error) {
	if r := h.redactor(); r != nil {
		// No secret value enters the log, whoever wrote the record.
		for i := range recs {
			recs[i].Data = r.Bytes(recs[i].Data)
		}
	}
	batches := h.st.Batches(recs)
	if len(batches) == 0 {
		batches = [][]store.Record{nil}
	}
	var out []Event
	for i, b := range batches {
		last := inTx
		if i < len(batches)-1 {
			last = nil
		}
		evs, on, err := h.appendBatch(sessionID, branch, last, b)
		if err != nil {
			return out, on, err
		}
		branch = on
		out = append(out, evs...)
	}
	return out, branch, nil
}

// afterAppend publishes committed events and advances the cached projection.
func (h *Harness) afterAppend(sessionID, branch string, evs []Event) {
	h.committed(sessionID, branch, evs)
	for _, e := range evs {
		failpoint.Hit("after." + e.Type) // tests kill exo right after an event is durable
	}
}

// appendBatch appends records that fit one commit to the session's branch (failing with
// ErrBranchMoved if it is no longer branch, when branch is given) and runs inTx in the same
// transaction. It returns the events and the branch they are on.
func (h *Harness) appendBatch(sessionID, branch string, inTx func(*store.Tx) error, recs []store.Record) ([]Event, string, error) {
	var evs []Event
	err := h.st.Update(func(tx *store.Tx) error {
		s, err := getSession(tx, sessionID)
		if err != nil {
			return err
		}
		if branch != "" && s.Branch != branch {
			return fmt.Errorf("append to %s: %w", s.Name, ErrBranchMoved)
		}
		branch = s.Branch
		stored, err := tx.Append(branch, recs...)
		if evs = eventsOf(stored); err != nil || inTx == nil {
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
func (h *Harness) committed(sessionID, branch string, evs []Event) {
	if len(evs) == 0 {
		return
	}
	h.mu.Lock()
	st := h.states[branch]
	var blob []byte
	var at uint64
	if st != nil && st.Head+1 == evs[0].Seq {
		before := st.Head / h.opts.CheckpointEvery
		for _, e := range evs {
			st.Apply(e)
		}
		if st.Head/h.opts.CheckpointEvery != before {
			blob, at = encodeState(st), st.Head
		}
	} else if st != nil {
		delete(h.states, branch) // out of step: reload lazily
	}
	h.mu.Unlock()
	if blob != nil {
		h.putCheckpoint(branch, at, blob)
	}
	h.broker.publish(Notice{Session: sessionID, Events: evs})
}

// putCheckpoint stores a Session projection checkpoint, then prunes the branch's older ones
// that retention does not keep (the newest few and a thinning ladder of older ones: see
// store.PruneCheckpoints). One that cannot be stored, or a prune that fails, costs replay or
// space, so it fails nothing, but it is logged.
func (h *Harness) putCheckpoint(branch string, at uint64, blob []byte) {
	if err := h.st.PutCheckpoint(sessionProjection, branch, at, blob); err != nil {
		h.log().Warn("checkpoint not stored: opening the session replays from an earlier one",
			"branch", branch, "seq", at, "bytes", len(blob), "error", err)
		return
	}
	failpoint.Hit("checkpoint.stored") // tests kill exo between a checkpoint and its prune
	if h.keepCheckpoints {
		return
	}
	if _, err := h.st.PruneCheckpoints(sessionProjection, branch); err != nil {
		h.log().Warn("older checkpoints not pruned: they keep taking space until the next checkpoint prunes them",
			"branch", branch, "seq", at, "error", err)
	}
}
