package governance

import (
	"reflect"
	"sync"
	"testing"
)

func TestTrackerMatchesReplay(t *testing.T) {
	h := openHarness(t)
	a := newSession(t, h, "alpha", "/p", &Scope{Allow: []string{"src/**"}, Budget: 3})
	b := newSession(t, h, "beta", "/p", nil)
	tr := NewTracker(h)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				if _, err := tr.Fleet(); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	mustAppend(t, h, a.ID, snapshot("src/x.go", "docs/y.md"))
	mustAppend(t, h, b.ID, snapshot("src/x.go"))
	wg.Wait()
	cs, err := tr.RecordConflicts()
	if err != nil || len(cs) != 1 {
		t.Fatalf("conflicts %v %v", cs, err)
	}
	for _, id := range []string{a.ID, b.ID} {
		got, err := tr.State(id)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Load(h, id)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("tracked %+v\nreplayed %+v", got, want)
		}
	}
	fromTracker, _ := tr.Fleet()
	replayed, _ := Fleet(h)
	if !reflect.DeepEqual(fromTracker, replayed) {
		t.Fatalf("fleet differs:\n%+v\n%+v", fromTracker, replayed)
	}
	st, _ := tr.State(a.ID)
	st.Files["mutated"] = &Touch{}
	if again, _ := tr.State(a.ID); again.Files["mutated"] != nil {
		t.Fatal("State returned the tracker's own copy")
	}
}
