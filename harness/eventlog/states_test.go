package eventlog

import (
	"reflect"
	"strconv"
	"testing"

	"exo/harness/api"
	"exo/store"
)

// openStatesLog opens a log on a new store, closed when t ends.
func openStatesLog(t *testing.T) (*store.Store, *Log) {
	t.Helper()
	st, err := store.Open(t.TempDir(), store.Options{Vocabulary: storeVocabulary, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, New(st, Options{})
}

// newBranchWith creates branch b in st with rec as its first event.
func newBranchWith(t *testing.T, st *store.Store, b string, rec store.Record) {
	t.Helper()
	if err := st.Update(func(tx *store.Tx) error {
		if _, err := tx.NewBranch(b); err != nil {
			return err
		}
		_, err := tx.Append(b, rec)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// TestStatesKeptBounded: the log keeps the Session projections of the maxStates branches used
// last, not one for every branch it ever read (a daemon kept each session's for its life), and
// a projection dropped and loaded again is the same.
func TestStatesKeptBounded(t *testing.T) {
	t.Parallel()
	st, l := openStatesLog(t)
	rec, err := NewRecord(api.TypeInvocationReceived, api.ActorUser, api.InvocationReceived{Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	var first *api.SessionState
	for i := range 100 {
		b := "branch-" + strconv.Itoa(i)
		newBranchWith(t, st, b, rec)
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

// TestStatesKeptBoundedByBytes: past the one used last, the projections kept hold at most
// maxStateBytes, however few branches hold it (32 projections of 256 items of 8 KiB each could
// hold 64 MiB), both for projections loaded and for ones grown by commits; a dropped one loads
// again the same.
func TestStatesKeptBoundedByBytes(t *testing.T) {
	t.Parallel()
	st, l := openStatesLog(t)
	big := make([]byte, 8<<10)
	for i := range big {
		big[i] = 'a' + byte(i%26)
	}
	rec, err := NewRecord(api.TypeInvocationReceived, api.ActorUser, api.InvocationReceived{Text: string(big)})
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]store.Record, 20) // 20 items of 8 KiB: 160 KiB a projection
	for i := range recs {
		recs[i] = rec
	}
	held := func() (sum, newest int) {
		l.mu.Lock()
		defer l.mu.Unlock()
		at := uint64(0)
		for b, s := range l.states {
			n := stateBytes(s)
			sum += n
			if l.statesUsed[b] > at {
				at, newest = l.statesUsed[b], n
			}
			if l.statesSize[b] != n {
				t.Errorf("%s: %d bytes counted, %d held", b, l.statesSize[b], n)
			}
		}
		if sum != l.statesBytes {
			t.Errorf("%d bytes counted in all, %d held", l.statesBytes, sum)
		}
		return sum, newest
	}
	var first *api.SessionState
	for i := range 24 {
		b := "branch-" + strconv.Itoa(i)
		var evs []api.Event
		newBranchWith(t, st, b, rec)
		if _, err := l.BranchState(b); err != nil { // loaded with one item, kept
			t.Fatal(err)
		}
		if err := st.Update(func(tx *store.Tx) error {
			stored, err := tx.Append(b, recs...)
			evs = EventsOf(stored)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			l.Committed("", b, evs) // grown in place by the commit
		}
		s, err := l.BranchState(b)
		if err != nil || s.Head != 21 || len(s.Items) != 21 {
			t.Fatalf("state of %s: %v, head %d, %d items", b, err, s.Head, len(s.Items))
		}
		if i == 0 {
			first = s
		}
		if sum, newest := held(); sum-newest > maxStateBytes {
			t.Fatalf("after %d branches the projections besides the newest hold %d bytes, want at most %d", i+1, sum-newest, maxStateBytes)
		}
	}
	again, err := l.BranchState("branch-0")
	if err != nil || !reflect.DeepEqual(again, first) {
		t.Fatalf("the first branch's state loaded again differs: %v", err)
	}
	held()
}
