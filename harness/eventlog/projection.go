package eventlog

import (
	"encoding/json"
	"fmt"

	"exo/harness/api"
	"exo/store"
)

// Projection is anything folded from events one at a time.
type Projection interface {
	Apply(e api.Event)
}

// SessionProjection names the Session projection's checkpoints in the store.
const SessionProjection = "session.v1"

// EncodeState serialises a SessionState checkpoint.
func EncodeState(s *api.SessionState) []byte {
	b, _ := json.Marshal(s)
	return b
}

// State returns the Session projection of a session's current branch.
func (l *Log) State(sessionID string) (*api.SessionState, error) {
	var branch string
	err := l.st.View(func(tx *store.Tx) error {
		s, err := GetSession(tx, sessionID)
		if err != nil {
			return err
		}
		branch = s.Branch
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("state of %s: %w", sessionID, err)
	}
	return l.BranchState(branch)
}

// BranchState returns the Session projection at the head of a branch: from memory when it is
// current, otherwise from the newest checkpoint plus the events after it.
func (l *Log) BranchState(branch string) (*api.SessionState, error) {
	head, _, err := l.st.Head(branch)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	if st := l.states[branch]; st != nil && st.Head == head {
		l.touchState(branch)
		c := st.Clone()
		l.mu.Unlock()
		return c, nil
	}
	l.mu.Unlock()
	st, replayed, err := l.LoadState(branch, head, true)
	if err != nil {
		return nil, err
	}
	if replayed > l.opts.CheckpointEvery {
		l.putCheckpoint(branch, st.Head, EncodeState(st))
	}
	l.mu.Lock()
	if cur := l.states[branch]; cur == nil || cur.Head < st.Head {
		l.keepState(branch, st.Clone())
	}
	l.mu.Unlock()
	return st, nil
}

// LoadState folds a branch's Session projection up to seq (0 means head). With useCheckpoint it
// starts from the newest usable checkpoint; otherwise it replays the whole history. It returns
// how many events it applied.
func (l *Log) LoadState(branch string, seq uint64, useCheckpoint bool) (*api.SessionState, uint64, error) {
	st := api.NewSessionState(branch)
	var applied uint64
	err := l.st.View(func(tx *store.Tx) error {
		if useCheckpoint {
			at, blob, ok, err := tx.LatestCheckpoint(SessionProjection, branch, seq)
			if err != nil {
				return err
			}
			if ok {
				restored := api.NewSessionState(branch)
				if json.Unmarshal(blob, restored) == nil && restored.Head == at {
					st = restored
				}
			}
		}
		st.Branch = branch
		for e, err := range tx.Events(branch, st.Head+1, seq) {
			if err != nil {
				return err
			}
			st.Apply(EventOf(e))
			applied++
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("project %s: %w", branch, err)
	}
	return st, applied, nil
}
