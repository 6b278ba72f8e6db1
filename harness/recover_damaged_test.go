package harness

import (
	"strings"
	"testing"

	"exo/store"
)

// TestAnUnreadableJournalRecordIsNamedAndAnAnswersIsDropped damages the journal as a bad page
// or a foreign write would: a streaming answer's record and a fork's record that no longer
// decode. Reopening drops the answer's (its key says what it was; the turn it belonged to is
// recorded interrupted all the same), names the fork's as a problem instead of skipping it
// silently, and a second reopen finds the journal as the first left it.
func TestAnUnreadableJournalRecordIsNamedAndAnAnswersIsDropped(t *testing.T) {
	home := t.TempDir()
	h, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSession(NewSessionOptions{Name: "cut"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Record{MustRecord(TypeStepStarted, ActorHarness, StepStarted{Step: 1}),
		MustRecord(TypeModelRequested, ActorHarness, ModelRequested{Model: "m"})} {
		if _, err := h.Append(s.ID, r); err != nil {
			t.Fatal(err)
		}
	}
	answerKey := streamedIDForTest(s.Branch)
	const forkKey = "0123456789abcdef-fork"
	if err := h.st.Update(func(tx *store.Tx) error {
		if err := tx.PutRecord(store.Journal, answerKey, []byte("{\"op\":\"answer\",\"answer\":{\"text\":\"\xff\xfe trunc")); err != nil {
			return err
		}
		return tx.PutRecord(store.Journal, forkKey, []byte("\x00\x01 not json"))
	}); err != nil {
		t.Fatal(err)
	}
	h.Close()

	h, err = Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := h.Recovery()
	if len(rep.Interrupted) != 1 {
		t.Fatalf("the turn the answer belonged to: %+v", rep)
	}
	if !hasLine(rep.Completed, "unreadable answer saved for "+s.Branch) {
		t.Fatalf("the unreadable answer is not reported dropped: %+v", rep)
	}
	if !hasLine(rep.Problems, forkKey) || !hasLine(rep.Problems, "unreadable") {
		t.Fatalf("the unreadable fork record is not named: %+v", rep)
	}
	entries, err := h.journal()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].ID != forkKey || entries[0].Op != opUnreadable {
		t.Fatalf("journal after recovery: %+v", entries)
	}
	if p := h.unfinished(); len(p) != 1 || !strings.Contains(p[0].Reason, forkKey) {
		t.Fatalf("unfinished: %+v", p)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	if last := evs[len(evs)-1]; last.Type != TypeTurnInterrupted {
		t.Fatalf("last event %s", last.Type)
	}
	h.Close()

	h, err = Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if rep := h.Recovery(); len(rep.Interrupted) != 0 || len(rep.Completed) != 0 {
		t.Fatalf("a second open did more: %+v", rep)
	}
}

func streamedIDForTest(branch string) string { return opAnswer + ":" + branch }

func hasLine(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}
