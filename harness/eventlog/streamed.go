package eventlog

import (
	"encoding/json"
	"errors"
	"fmt"

	"exo/harness/api"
	"exo/store"
)

// StreamedAnswer is what a model's answer had streamed when it was last saved: its text and
// the usage and cost exo estimated for it so far, all redacted of sealed secrets. A process
// killed while the answer streams leaves it in the journal, and the next open records it as
// the answer, cut by the kill (Recover), instead of losing what the user had read.
type StreamedAnswer struct {
	// Model is the model's label, as model.completed names it.
	Model string `json:"model"`
	// Text is the answer's text as far as it had streamed, redacted.
	Text string `json:"text,omitempty"`
	// Usage is the estimate: the prompt's tokens in, the streamed text's tokens out.
	Usage api.Usage `json:"usage"`
	// Cost prices Usage with the model's prices.
	Cost float64 `json:"cost,omitempty"`
}

// streamedID is the journal key of a branch's streaming answer: one at a time per branch.
func streamedID(branch string) string { return OpAnswer + ":" + branch }

// SaveStreamed records, replacing the one before, what the answer streaming on a branch in
// reply to the model.requested at seq has sent so far. It is one small write, made at most
// about once a second by the executor, so that kill -9 mid-answer loses at most that second.
func (l *Log) SaveStreamed(session, branch string, seq uint64, a StreamedAnswer) error {
	e := NewJournal(OpAnswer)
	e.ID, e.Session, e.Branch, e.Seq, e.Answer = streamedID(branch), session, branch, seq, &a
	return l.st.Update(func(tx *store.Tx) error { return PutJournal(tx, e) })
}

// DropStreamed removes a branch's saved streaming answer, once the answer, its cut or its
// failure is in the log (nothing when none was saved).
func (l *Log) DropStreamed(branch string) error {
	return l.st.Update(func(tx *store.Tx) error { return DropJournal(tx, streamedID(branch)) })
}

// Streamed returns the saved streaming answer of a branch, if any.
func (l *Log) Streamed(branch string) (JournalEntry, bool, error) {
	var e JournalEntry
	found := false
	err := l.st.View(func(tx *store.Tx) error {
		v, err := tx.Record(store.Journal, streamedID(branch))
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := json.Unmarshal(v, &e); err != nil {
			return fmt.Errorf("the streaming answer saved for %s: %w", branch, err)
		}
		found = e.Answer != nil
		return nil
	})
	return e, found && err == nil, err
}
