package store

import (
	"errors"
	"strings"
	"testing"
)

func TestAppendReadFork(t *testing.T) {
	s := openTest(t, Options{})
	if _, err := s.NewBranch("root"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "root", 10, 3)
	if _, err := s.Fork("child", "root", 4); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "child", 3, 3)
	evs, err := s.ReadRange("child", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 7 {
		t.Fatalf("child history has %d events, want 7", len(evs))
	}
	for i, e := range evs {
		if e.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
		wantBranch := "root"
		if i >= 4 {
			wantBranch = "child"
		}
		if e.Branch != wantBranch {
			t.Fatalf("event %d stored in %s, want %s", e.Seq, e.Branch, wantBranch)
		}
	}
	rootEvs, _ := s.ReadRange("root", 0, 0)
	if evs[4].Hash == rootEvs[4].Hash {
		t.Fatal("fork's own event 5 should not share the root's hash")
	}
	if got := ComputeHash(rootEvs[3].Hash, &evs[4]); got != evs[4].Hash {
		t.Fatal("first own event of a fork must chain to the parent's fork-point hash")
	}
	rep, err := s.VerifyAll()
	if err != nil || !rep.OK() || rep.Events != 13 {
		t.Fatalf("verify all: %+v %v", rep, err)
	}
}

func TestForkBounds(t *testing.T) {
	s := openTest(t, Options{})
	s.NewBranch("a")
	mustAppend(t, s, "a", 5, 5)
	if _, err := s.Fork("b", "a", 6); !errors.Is(err, ErrBadSeq) {
		t.Fatalf("fork past head: %v", err)
	}
	if _, err := s.Fork("b", "nope", 1); !errors.Is(err, ErrNoBranch) {
		t.Fatalf("fork of unknown branch: %v", err)
	}
	if _, err := s.Fork("z", "a", 0); err != nil {
		t.Fatalf("fork at 0: %v", err)
	}
	if h, _, _ := s.Head("z"); h != 0 {
		t.Fatalf("empty fork head %d", h)
	}
	if _, err := s.NewBranch("a"); !errors.Is(err, ErrBranchExists) {
		t.Fatalf("duplicate branch: %v", err)
	}
}

func TestAppendRejectsBadData(t *testing.T) {
	s := openTest(t, Options{})
	s.NewBranch("a")
	_, err := s.Append("a", rec(1), Record{Type: "x", Actor: "user", Data: []byte("{not json")})
	if err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("bad JSON accepted: %v", err)
	}
	if h, _, _ := s.Head("a"); h != 0 {
		t.Fatalf("a failed batch must append nothing, head %d", h)
	}
	if _, err := s.Append("a", Record{Type: "", Actor: "user"}); err == nil {
		t.Fatal("empty type accepted")
	}
}

func TestEventsIteratorRanges(t *testing.T) {
	s := openTest(t, Options{})
	s.NewBranch("r")
	mustAppend(t, s, "r", 20, 7)
	s.Fork("c1", "r", 10)
	mustAppend(t, s, "c1", 5, 5)
	s.Fork("c2", "c1", 12)
	mustAppend(t, s, "c2", 5, 2)
	evs, err := s.ReadRange("c2", 9, 14)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, e.Branch)
	}
	want := "r r c1 c1 c2 c2"
	if strings.Join(got, " ") != want {
		t.Fatalf("owners %v, want %s", got, want)
	}
	if evs[0].Seq != 9 || evs[5].Seq != 14 {
		t.Fatalf("range bounds %d..%d", evs[0].Seq, evs[5].Seq)
	}
	err = s.View(func(tx *Tx) error {
		e, err := tx.Event("c2", 11)
		if err != nil || e.Branch != "c1" {
			t.Fatalf("event c2@11: %+v %v", e, err)
		}
		_, err = tx.Event("c2", 18)
		if !errors.Is(err, ErrBadSeq) {
			t.Fatalf("event past head: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRecords(t *testing.T) {
	s := openTest(t, Options{})
	if err := s.PutRecord(Sessions, "s1", []byte("meta")); err != nil {
		t.Fatal(err)
	}
	v, err := s.Record(Sessions, "s1")
	if err != nil || string(v) != "meta" {
		t.Fatalf("record: %q %v", v, err)
	}
	s.DeleteRecord(Sessions, "s1")
	if _, err := s.Record(Sessions, "s1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted record: %v", err)
	}
}

func TestCheckpointsFollowAncestry(t *testing.T) {
	s := openTest(t, Options{})
	s.NewBranch("r")
	mustAppend(t, s, "r", 30, 30)
	s.PutCheckpoint("p", "r", 10, []byte("r10"))
	s.PutCheckpoint("p", "r", 20, []byte("r20"))
	s.Fork("c", "r", 15)
	mustAppend(t, s, "c", 10, 10)
	check := func(branch string, at uint64, wantSeq uint64, want string) {
		t.Helper()
		s.View(func(tx *Tx) error {
			seq, blob, ok, err := tx.LatestCheckpoint("p", branch, at)
			if err != nil {
				t.Fatal(err)
			}
			if want == "" {
				if ok {
					t.Fatalf("%s@%d: unexpected checkpoint %d", branch, at, seq)
				}
				return nil
			}
			if !ok || seq != wantSeq || string(blob) != want {
				t.Fatalf("%s@%d: got %d %q %v, want %d %q", branch, at, seq, blob, ok, wantSeq, want)
			}
			return nil
		})
	}
	check("r", 0, 20, "r20")
	check("r", 19, 10, "r10")
	check("c", 0, 10, "r10") // r20 is past c's fork point
	s.PutCheckpoint("p", "c", 22, []byte("c22"))
	check("c", 0, 22, "c22")
	check("c", 21, 10, "r10")
	check("r", 9, 0, "")
}
