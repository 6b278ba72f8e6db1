package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// backend opens stores on one storage engine for the conformance suite.
type backend struct {
	name string
	// open returns a fresh, empty store.
	open func(tb testing.TB) *Store
	// reopen closes s and opens the same data again, as a restarted process would.
	reopen func(tb testing.TB, s *Store) *Store
	// openAgain opens the data of the closed store s with opts, as another build would.
	openAgain func(tb testing.TB, s *Store, opts Options) (*Store, error)
}

// backends lists the engines the suite runs against, each started for the test given (which
// outlives every store opened); kv_etcd_test.go adds etcd.
var backends = []namedBackend{{"bbolt", boltBackend}}

// namedBackend names an engine and starts it for a test.
type namedBackend struct {
	name  string
	start func(t *testing.T) backend
}

// boltBackend opens stores on bbolt files.
func boltBackend(*testing.T) backend {
	return backend{
		name: "bbolt",
		open: func(tb testing.TB) *Store {
			s, err := Open(tb.TempDir(), Options{NoSync: true})
			if err != nil {
				tb.Fatalf("open: %v", err)
			}
			tb.Cleanup(func() { s.Close() })
			return s
		},
		reopen: func(tb testing.TB, s *Store) *Store {
			tb.Helper()
			home := s.Home()
			if err := s.Close(); err != nil {
				tb.Fatalf("close: %v", err)
			}
			s2, err := Open(home, Options{NoSync: true})
			if err != nil {
				tb.Fatalf("reopen: %v", err)
			}
			tb.Cleanup(func() { s2.Close() })
			return s2
		},
		openAgain: func(tb testing.TB, s *Store, opts Options) (*Store, error) {
			opts.NoSync = true
			s2, err := Open(s.Home(), opts)
			if err == nil {
				tb.Cleanup(func() { s2.Close() })
			}
			return s2, err
		},
	}
}

// TestConformance runs the same behaviour checks against every storage engine.
func TestConformance(t *testing.T) {
	cases := []struct {
		name string
		fn   func(*testing.T, backend)
	}{
		{"AppendRead", confAppendRead},
		{"ForkRewind", confForkRewind},
		{"Verify", confVerify},
		{"Checkpoints", confCheckpoints},
		{"CheckpointRetention", confCheckpointRetention},
		{"RecordsArtifacts", confRecordsArtifacts},
		{"CrashAtomic", confCrashAtomic},
		{"TamperChanged", confTamperChanged},
		{"TamperLost", confTamperLost},
		{"Vocabulary", confVocabulary},
		{"LazyHead", confLazyHead},
		{"ConcurrentForks", confConcurrentForks},
	}
	for _, nb := range backends {
		t.Run(nb.name, func(t *testing.T) {
			be := nb.start(t)
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					c.fn(t, be)
				})
			}
		})
	}
}

// payloads returns the "n" field of every event, in order.
func payloads(t *testing.T, evs []Event) []int {
	t.Helper()
	out := make([]int, len(evs))
	for i, e := range evs {
		var d struct{ N int }
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatalf("event %d data %s: %v", e.Seq, e.Data, err)
		}
		out[i] = d.N
	}
	return out
}

func confAppendRead(t *testing.T, be backend) {
	s := be.open(t)
	if _, err := s.NewBranch("m"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "m", 1, 1)
	mustAppend(t, s, "m", 300, 100) // payloads 0..299 again, seq 2..301
	evs, err := s.ReadRange("m", 0, 0)
	if err != nil || len(evs) != 301 {
		t.Fatalf("read %d events: %v", len(evs), err)
	}
	for i, e := range evs {
		if e.Seq != uint64(i+1) || e.Branch != "m" {
			t.Fatalf("event %d is %s@%d", i, e.Branch, e.Seq)
		}
	}
	if got := payloads(t, evs[1:4]); fmt.Sprint(got) != "[0 1 2]" {
		t.Fatalf("payloads %v", got)
	}
	head, h, err := s.Head("m")
	if err != nil || head != 301 || h != evs[300].Hash {
		t.Fatalf("head %d %s: %v", head, h.Short(), err)
	}
	if _, err := s.Append("m", Record{Type: "x", Actor: "y", Data: json.RawMessage(`{bad`)}); err == nil {
		t.Fatal("invalid JSON was appended")
	}
	if _, err := s.Append("m", rec(1), Record{Type: "", Actor: "y"}); err == nil {
		t.Fatal("a record without a type was appended")
	}
	if head2, _, _ := s.Head("m"); head2 != 301 {
		t.Fatalf("a refused batch moved the head to %d", head2)
	}
	if _, err := s.Append("nope", rec(1)); !errors.Is(err, ErrNoBranch) {
		t.Fatalf("append to a missing branch: %v", err)
	}
	if _, err := s.NewBranch("m"); !errors.Is(err, ErrBranchExists) {
		t.Fatalf("second branch m: %v", err)
	}
	part, err := s.ReadRange("m", 299, 0)
	if err != nil || len(part) != 3 || part[0].Seq != 299 {
		t.Fatalf("tail read %d: %v", len(part), err)
	}
}

func confForkRewind(t *testing.T, be backend) {
	s := be.open(t)
	s.NewBranch("root")
	mustAppend(t, s, "root", 20, 7)
	if _, err := s.Fork("f", "root", 10); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "f", 5, 5)
	if _, err := s.Fork("g", "f", 12); err != nil { // a rewind of f past its fork point
		t.Fatal(err)
	}
	mustAppend(t, s, "g", 3, 1)
	if _, err := s.Fork("bad", "root", 21); !errors.Is(err, ErrBadSeq) {
		t.Fatalf("fork past the head: %v", err)
	}
	if _, err := s.Fork("f", "root", 1); !errors.Is(err, ErrBranchExists) {
		t.Fatalf("fork onto an existing id: %v", err)
	}
	want := map[string]string{
		"root": "[0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19]",
		"f":    "[0 1 2 3 4 5 6 7 8 9 0 1 2 3 4]",
		"g":    "[0 1 2 3 4 5 6 7 8 9 0 1 0 1 2]",
	}
	for br, w := range want {
		evs, err := s.ReadRange(br, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(payloads(t, evs)); got != w {
			t.Fatalf("%s: %s, want %s", br, got, w)
		}
	}
	lin, err := s.Lineage("g")
	if err != nil || fmt.Sprint(lin) != "[{root 1 10} {f 11 12} {g 13 15}]" {
		t.Fatalf("lineage %v: %v", lin, err)
	}
	err = s.View(func(tx *Tx) error {
		e, err := tx.Event("g", 5)
		if err != nil || e.Branch != "root" {
			return fmt.Errorf("g@5 from %s: %v", e.Branch, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := s.VerifyBranch("g"); err != nil || !rep.OK() || rep.Events != 15 {
		t.Fatalf("verify g: %+v %v", rep, err)
	}
}

func confVerify(t *testing.T, be backend) {
	s := be.open(t)
	s.NewBranch("a")
	mustAppend(t, s, "a", 50, 10)
	s.Fork("b", "a", 25)
	mustAppend(t, s, "b", 10, 3)
	s.Fork("c", "a", 0)
	rep, err := s.VerifyAll()
	if err != nil || !rep.OK() || rep.Branches != 3 || rep.Events != 60 {
		t.Fatalf("verify all: %+v %v", rep, err)
	}
}

func confCheckpoints(t *testing.T, be backend) {
	s := be.open(t)
	s.NewBranch("p")
	mustAppend(t, s, "p", 30, 10)
	for _, at := range []uint64{10, 20} {
		if err := s.PutCheckpoint("view", "p", at, []byte(fmt.Sprint("p@", at))); err != nil {
			t.Fatal(err)
		}
	}
	s.Fork("k", "p", 15)
	mustAppend(t, s, "k", 10, 10)
	s.PutCheckpoint("view", "k", 22, []byte("k@22"))
	check := func(branch string, at uint64, want string) {
		t.Helper()
		err := s.View(func(tx *Tx) error {
			seq, blob, ok, err := tx.LatestCheckpoint("view", branch, at)
			got := fmt.Sprintf("%d %s %v", seq, blob, ok)
			if err != nil || got != want {
				return fmt.Errorf("checkpoint %s@%d: %q, want %q (%v)", branch, at, got, want, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	check("p", 0, "20 p@20 true")
	check("p", 19, "10 p@10 true")
	check("p", 9, "0  false")
	check("k", 0, "22 k@22 true")
	check("k", 21, "10 p@10 true") // p@20 is past k's fork point
	check("p", 0, "20 p@20 true")
	err := s.View(func(tx *Tx) error {
		_, _, ok, err := tx.LatestCheckpoint("other", "k", 0)
		if ok || err != nil {
			return fmt.Errorf("unknown projection: %v %v", ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func confRecordsArtifacts(t *testing.T, be backend) {
	s := be.open(t)
	for i, k := range []string{"b", "a", "c"} {
		if err := s.PutRecord(Sessions, k, []byte{byte('0' + i)}); err != nil {
			t.Fatal(err)
		}
	}
	s.DeleteRecord(Sessions, "c")
	s.DeleteRecord(Sessions, "missing")
	var keys []string
	err := s.View(func(tx *Tx) error {
		return tx.Records(Sessions, func(k string, v []byte) error { keys = append(keys, k+"="+string(v)); return nil })
	})
	if err != nil || fmt.Sprint(keys) != "[a=1 b=0]" {
		t.Fatalf("records %v: %v", keys, err)
	}
	if _, err := s.Record(Sessions, "c"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted record: %v", err)
	}
	body := strings.Repeat("artifact body ", 1000)
	a, err := s.PutArtifact("one", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.PutArtifact("two", strings.NewReader(body))
	if err != nil || again.ID != a.ID || again.Name != "one" {
		t.Fatalf("same content again: %+v %v", again, err)
	}
	rc, info, err := s.OpenArtifact(a.ID[:8])
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(got, []byte(body)) || info.Size != int64(len(body)) {
		t.Fatalf("artifact read back %d bytes, info %+v", len(got), info)
	}
	if n, size, err := s.ArtifactStats(); err != nil || n != 1 || size != int64(len(body)) {
		t.Fatalf("stats %d %d %v", n, size, err)
	}
}

func confCrashAtomic(t *testing.T, be backend) {
	s := be.open(t)
	s.NewBranch("m")
	mustAppend(t, s, "m", 40, 8)
	boom := errors.New("crash inside the transaction")
	err := s.Update(func(tx *Tx) error {
		if _, err := tx.Append("m", rec(100), rec(101)); err != nil {
			return err
		}
		if _, err := tx.Fork("half", "m", 41); err != nil {
			return err
		}
		tx.PutRecord(Sessions, "half", []byte("x"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("update: %v", err)
	}
	s = be.reopen(t, s)
	if head, _, err := s.Head("m"); err != nil || head != 40 {
		t.Fatalf("head after the failed transaction and a reopen: %d %v", head, err)
	}
	if _, err := s.Record(Sessions, "half"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("record of the failed transaction: %v", err)
	}
	if _, _, err := s.Head("half"); !errors.Is(err, ErrNoBranch) {
		t.Fatalf("branch of the failed transaction: %v", err)
	}
	if rep, err := s.VerifyAll(); err != nil || !rep.OK() || rep.Events != 40 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	mustAppend(t, s, "m", 2, 2)
}

// rawPut writes a key through the engine, behind the store's back (an attacker or a bad disk).
func rawPut(t *testing.T, s *Store, key []byte, val []byte, path ...string) {
	t.Helper()
	err := s.kv.update(func(tx kvTx) error {
		b, err := tx.createBucket(path...)
		if err != nil {
			return err
		}
		if val == nil {
			return b.del(key)
		}
		return b.put(key, val)
	})
	if err != nil {
		t.Fatalf("raw write: %v", err)
	}
}

func confTamperChanged(t *testing.T, be backend) {
	s := be.open(t)
	s.NewBranch("m")
	mustAppend(t, s, "m", 10, 10)
	var raw []byte
	s.kv.view(func(tx kvTx) error {
		b, _, _ := tx.bucket(pathEvents, "m")
		v, err := b.get(seqKey(4))
		raw = append([]byte(nil), v...)
		return err
	})
	e, err := s.codec.Decode("m", raw)
	if err != nil {
		t.Fatal(err)
	}
	e.Data = json.RawMessage(`{"n":999}`)
	rawPut(t, s, seqKey(4), s.codec.Encode(&e), pathEvents, "m")
	rep, err := s.VerifyAll()
	if err != nil || rep.OK() {
		t.Fatalf("tampered event not found: %+v %v", rep, err)
	}
	if p := rep.Problems[0]; p.Branch != "m" || p.Seq != 4 || !strings.Contains(p.Reason, "hash mismatch") {
		t.Fatalf("problem %+v", p)
	}
	if _, err := s.Append("m", rec(1)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("append to a tampered store: %v", err)
	}
}

func confTamperLost(t *testing.T, be backend) {
	s := be.open(t)
	s.NewBranch("m")
	mustAppend(t, s, "m", 10, 5)
	rawPut(t, s, seqKey(10), nil, pathEvents, "m")
	if _, _, err := s.Head("m"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("head with its last event lost: %v", err)
	}
	s = be.reopen(t, s)
	if err := s.Damaged(); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("reopened store with a lost event is not damaged: %v", err)
	}
	if _, err := s.Append("m", rec(1)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("append after a lost event: %v", err)
	}
}
