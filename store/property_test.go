package store

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"
)

// modelBranch is the in-memory model of a branch: its full history of payloads.
type modelBranch []string

// TestPropertyMatchesModel runs random append / fork / rewind sequences against a plain
// in-memory model and checks every branch's full history matches it.
func TestPropertyMatchesModel(t *testing.T) {
	for seed := int64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { runModel(t, seed) })
	}
}

func runModel(t *testing.T, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	s := openTest(t, Options{NoSync: true})
	model := map[string]modelBranch{}
	// current maps a "session" to the branch it writes to; rewind repoints it.
	current := map[string]string{}
	var ids []string
	newID := func() string { id := fmt.Sprintf("b%03d", len(model)); return id }
	id := newID()
	if _, err := s.NewBranch(id); err != nil {
		t.Fatal(err)
	}
	model[id] = nil
	current["s0"] = id
	ids = append(ids, id)
	for op := 0; op < 300; op++ {
		sess := fmt.Sprintf("s%d", rng.Intn(len(current)))
		br := current[sess]
		switch r := rng.Intn(10); {
		case r < 6: // append a batch
			n := 1 + rng.Intn(5)
			var recs []Record
			for i := 0; i < n; i++ {
				p := fmt.Sprintf("%s-%d-%d", br, op, i)
				recs = append(recs, Record{Type: "t", Actor: "user", Data: json.RawMessage(fmt.Sprintf("%q", p))})
				model[br] = append(model[br], p)
			}
			if _, err := s.Append(br, recs...); err != nil {
				t.Fatal(err)
			}
		default: // fork (new session) or rewind (same session, new branch)
			k := 0
			if len(model[br]) > 0 {
				k = rng.Intn(len(model[br]) + 1)
			}
			nid := newID()
			if _, err := s.Fork(nid, br, uint64(k)); err != nil {
				t.Fatal(err)
			}
			model[nid] = append(modelBranch(nil), model[br][:k]...)
			ids = append(ids, nid)
			if r < 8 {
				current[fmt.Sprintf("s%d", len(current))] = nid
			} else {
				current[sess] = nid
			}
		}
	}
	for _, id := range ids {
		evs, err := s.ReadRange(id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := model[id]
		if len(evs) != len(want) {
			t.Fatalf("branch %s: %d events, model has %d", id, len(evs), len(want))
		}
		for i, e := range evs {
			var p string
			json.Unmarshal(e.Data, &p)
			if p != want[i] || e.Seq != uint64(i+1) {
				t.Fatalf("branch %s seq %d: %q, model %q", id, e.Seq, p, want[i])
			}
		}
		rep, err := s.VerifyBranch(id)
		if err != nil || !rep.OK() {
			t.Fatalf("verify %s: %+v %v", id, rep, err)
		}
	}
	if rep, err := s.VerifyAll(); err != nil || !rep.OK() {
		t.Fatalf("verify all: %+v %v", rep, err)
	}
}
