package conformance

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"exo/harness"
	"exo/harness/extexec/exectest"
)

// ForkAndRewind: a fork at the end of a first turn gives the child's agent the history up to
// there and nothing after (a later turn's command and answer are in none of its requests); a
// rewind to the same point removes the file the later turn's command made, and the agent
// restarted on the rewound session sees the conversation as of the rewind.
func ForkAndRewind(t *testing.T, s *Suite) {
	f := s.Fixture(t, "", harness.Options{})
	x := f.Open(t, Options{})
	f.prompt(t, x, f.Sess.ID, promptRemember+" PAPAYA")
	at := f.lastSeq(t, f.Sess.ID)
	f.prompt(t, x, f.Sess.ID, promptFile+" (later)")
	if _, err := os.Stat(filepath.Join(f.WS, "x.txt")); err != nil {
		t.Fatalf("the later turn's file: %v", err)
	}
	child, err := f.H.Fork(f.Sess.ID, at, harness.ForkOptions{Name: "child"})
	if err != nil {
		t.Fatal(err)
	}
	f.prompt(t, x, child.ID, promptWord+" did I say? (fork)")
	s.historyIs(t, "(fork)")
	x.Close()
	if _, err := f.H.Rewind(f.Sess.ID, at); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.WS, "x.txt")); !os.IsNotExist(err) {
		t.Fatalf("x.txt is still there after the rewind: %v (events %s)", err, exectest.Types(f.events(t, f.Sess.ID)))
	}
	x2 := f.Open(t, Options{})
	f.prompt(t, x2, f.Sess.ID, promptWord+" did I say? (rewind)")
	s.historyIs(t, "(rewind)")
}

// historyIs fails unless a request marked by marker holds the first turn (PAPAYA and its answer)
// and none holds the later turn.
func (s *Suite) historyIs(t *testing.T, marker string) {
	t.Helper()
	qs := s.requestsWith(marker)
	held := false
	for _, q := range qs {
		held = held || bytes.Contains(q.Body, []byte("PAPAYA")) && bytes.Contains(q.Body, []byte("I will remember it."))
		for _, later := range []string{"(later)", "echo hi > x.txt", answerFile} {
			if bytes.Contains(q.Body, []byte(later)) {
				t.Fatalf("a request %s holds %q, from after the point:\n%s", marker, later, q.Body)
			}
		}
	}
	if !held {
		t.Fatalf("no request %s holds the history up to the point (%d requests)", marker, len(qs))
	}
}
