package store

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyNamesDamagedEvents: bytes flipped in the tail of an event's stored hash, so that its
// short form still agrees with the content's, are reported with both hashes in full (the short
// forms alone read "stored X, content hashes to X"); an event whose data is no longer JSON is
// named as damaged by verify and by ValidData, and only it: the events after it are judged on
// their own hashes, not reported with it.
func TestVerifyNamesDamagedEvents(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.NewBranch("main")
	mustAppend(t, s, "main", 20, 5)
	s.Close()
	path := filepath.Join(home, DBName)
	TamperEvent(t, path, "main", 7, func(v []byte) { v[len(v)-1] ^= 0x01 }) // the hash's last byte
	TamperEvent(t, path, "main", 12, func(v []byte) {
		i := strings.IndexByte(string(v), '{')
		v[i] = '<' // its data is no longer JSON
	})
	s, err = Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rep, err := s.VerifyAll()
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, p := range rep.Problems {
		reasons = append(reasons, p.Reason)
	}
	all := strings.Join(reasons, "\n")
	if len(rep.Problems) < 2 || rep.Problems[0].Seq != 7 {
		t.Fatalf("problems: %+v", rep.Problems)
	}
	stored, content, ok := strings.Cut(strings.TrimPrefix(rep.Problems[0].Reason, "hash mismatch: stored "), ", content hashes to ")
	if !ok || len(stored) != 64 || len(content) != 64 || stored == content {
		t.Fatalf("hash mismatch of event 7 said %q", rep.Problems[0].Reason)
	}
	var at12 bool
	for _, p := range rep.Problems {
		switch p.Seq {
		case 12:
			at12 = strings.Contains(p.Reason, "main@12 is damaged (its data is not JSON)")
		case 13:
			t.Fatalf("event 13 reported with the damaged 12 before it:\n%s", all)
		}
	}
	if !at12 {
		t.Fatalf("event 12 not named as damaged:\n%s", all)
	}
	// Reads do not check data (that would cost every read a JSON scan); ValidData, which the
	// daemon uses when an answer cannot be encoded, names the event.
	evs, err := s.ReadRange("main", 10, 14)
	if err != nil {
		t.Fatalf("reading around the damaged event: %v", err)
	}
	for _, e := range evs {
		err := ValidData(e)
		if (e.Seq == 12) != (err != nil) || (err != nil && !strings.Contains(err.Error(), "main@12 is damaged")) {
			t.Fatalf("ValidData of event %d: %v", e.Seq, err)
		}
	}
}
