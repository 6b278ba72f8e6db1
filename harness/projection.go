package harness

import (
	"encoding/json"
	"fmt"

	"exo/store"
)

// Projection is anything folded from events one at a time.
type Projection interface {
	Apply(e Event)
}

// sessionProjection names the Session projection's checkpoints in the store.
const sessionProjection = "session.v1"

// encodeState serialises a SessionState checkpoint.
func encodeState(s *SessionState) []byte {
	b, _ := json.Marshal(s)
	return b
}

// State returns the Session projection of a session's current branch.
func (h *Harness) State(sessionID string) (*SessionState, error) {
	var branch string
	err := h.st.View(func(tx *store.Tx) error {
		s, err := getSession(tx, sessionID)
		if err != nil {
			return err
		}
		branch = s.Branch
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("state of %s: %w", sessionID, err)
	}
	return h.BranchState(branch)
}

// BranchState returns the Session projection at the head of a branch: from memory when it is
// current, otherwise from the newest checkpoint plus the events after it.
func (h *Harness) BranchState(branch string) (*SessionState, error) {
	head, _, err := h.st.Head(branch)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	if st := h.states[branch]; st != nil && st.Head == head {
		c := st.Clone()
		h.mu.Unlock()
		return c, nil
	}
	h.mu.Unlock()
	st, replayed, err := h.LoadState(branch, head, true)
	if err != nil {
		return nil, err
	}
	if replayed > h.opts.CheckpointEvery {
		h.putCheckpoint(branch, st.Head, encodeState(st))
	}
	h.mu.Lock()
	if cur := h.states[branch]; cur == nil || cur.Head < st.Head {
		h.states[branch] = st.Clone()
	}
	h.mu.Unlock()
	return st, nil
}

// LoadState folds a branch's Session projection up to seq (0 means head). With useCheckpoint it
// starts from the newest usable checkpoint; otherwise it replays the whole history. It returns
// how many events it applied.
func (h *Harness) LoadState(branch string, seq uint64, useCheckpoint bool) (*SessionState, uint64, error) {
	st := NewSessionState(branch)
	var applied uint64
	err := h.st.View(func(tx *store.Tx) error {
		if useCheckpoint {
			at, blob, ok, err := tx.LatestCheckpoint(sessionProjection, branch, seq)
			if err != nil {
				return err
			}
			if ok {
				restored := NewSessionState(branch)
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
			st.Apply(eventOf(e))
			applied++
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("project %s: %w", branch, err)
	}
	return st, applied, nil
}
