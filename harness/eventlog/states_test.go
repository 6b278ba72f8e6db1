package eventlog

import (
	"reflect"
	"strconv"
	"testing"

	"exo/harness/api"
	"exo/store"
)

// TestStatesKeptBounded: the log keeps the Session projections of the maxStates branches used
// last, not one for every branch it ever read (a daemon kept each session's for its life), and
// a projection dropped and loaded again is the same.
func TestStatesKeptBounded(t *testing.T) {
	t.Parallel()
	st, err := store.Open(t.TempDir(), store.Options{Vocabulary: storeVocabulary, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l := New(st, Options{})
	rec, err := NewRecord(api.TypeInvocationReceived, api.ActorUser, api.InvocationReceived{Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	var first *api.SessionState
	for i := range 100 {
		b := "branch-" + strconv.Itoa(i)
		if err := st.Update(func(tx *store.Tx) error {
			if _, err := tx.NewBranch(b); err != nil {
				return err
			}
			_, err := tx.Append(b, rec)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		s, err := l.BranchState(b)
		if err != nil || s.Head != 1 {
			t.Fatalf("state of %s: %v, head %d", b, err, s.Head)
		}
		if i == 0 {
			first = s
		}
	}
	l.mu.Lock()
	n := len(l.states)
	l.mu.Unlock()
	if n > 32 {
		t.Fatalf("%d branches' states kept, want at most 32", n)
	}
	again, err := l.BranchState("branch-0")
	if err != nil || !reflect.DeepEqual(again, first) {
		t.Fatalf("the first branch's state loaded again differs: %v\n%+v\n%+v", err, again, first)
	}
}
