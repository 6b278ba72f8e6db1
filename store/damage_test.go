package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// buildStore makes a closed store in a temp home with two branches, a fork, a record and a
// large (overflow-page) event, and returns the home and the database path.
func buildStore(t testing.TB) (string, string) {
	t.Helper()
	home := t.TempDir()
	s, err := Open(home, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	s.NewBranch("main")
	mustAppend(t, s, "main", 300, 25)
	s.Fork("side", "main", 120)
	mustAppend(t, s, "side", 40, 8)
	s.Fork("empty", "main", 50)
	big := Record{Type: "big", Actor: "user", Data: []byte(`{"text":"` + strings.Repeat("x", 20000) + `"}`)}
	if _, err := s.Append("main", big); err != nil {
		t.Fatal(err)
	}
	s.PutRecord(Settings, "k", []byte("v"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return home, filepath.Join(home, DBName)
}

func TestPageWalkAcceptsSoundFiles(t *testing.T) {
	_, path := buildStore(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	m, err := checkMetas(f, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	if p := mappedPages(f, fi.Size(), m); len(p) > 0 {
		t.Fatalf("a sound file has problems: %v", p)
	}
}

// TestDamagedFileRefusedBeforeMapping truncates and zeroes a real store in the ways that used to
// be reused (0 bytes as a new store, an odd size as SIGBUS, a zeroed page as "ok"): each is
// refused with ErrCorrupt and the way out, and the file is left as it was.
func TestDamagedFileRefusedBeforeMapping(t *testing.T) {
	cases := map[string]func(b []byte) []byte{
		"odd size":          func(b []byte) []byte { return b[:len(b)-1000] },
		"page-aligned half": func(b []byte) []byte { return b[:len(b)/2/4096*4096] },
		"one page":          func(b []byte) []byte { return b[:4096] },
		"zeroed meta 0":     func(b []byte) []byte { clear(b[:4096]); return b },
		"zeroed meta 1":     func(b []byte) []byte { clear(b[4096:8192]); return b },
		"flipped meta byte": func(b []byte) []byte { b[16+40] ^= 1; return b },
		"zeroed page 5":     func(b []byte) []byte { clear(b[5*4096 : 6*4096]); return b },
		"zeroed used page":  func(b []byte) []byte { return lastUsedZeroed(t, b) },
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			home, path := buildStore(t)
			b, _ := os.ReadFile(path)
			os.WriteFile(path, damage(b), 0o600)
			before := fileSum(t, path)
			s, err := Open(home, Options{})
			if err == nil {
				rep, verr := s.VerifyAll()
				s.Close()
				if verr == nil && rep.OK() {
					t.Fatal("a damaged file opened and verified ok")
				}
				return
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "exo doctor") {
				t.Fatalf("got %v, want ErrCorrupt naming the way out", err)
			}
			if fileSum(t, path) != before {
				t.Fatal("the refused file was modified")
			}
		})
	}
}

// lastUsedZeroed zeroes the highest page in use (zeroing a free page harms nothing).
func lastUsedZeroed(t *testing.T, b []byte) []byte {
	r := bytes.NewReader(b)
	m, err := checkMetas(r, int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	w := &pageWalker{data: b, m: m, used: make([]uint64, (m.pgid+63)/64), free: make([]uint64, (m.pgid+63)/64)}
	w.tree(m.root, nil, nil, 0)
	for id := m.pgid - 1; id > 1; id-- {
		if bit(w.used, id) {
			clear(b[id*4096 : (id+1)*4096])
			return b
		}
	}
	t.Fatal("no page in use")
	return nil
}

func TestMissingOrEmptyDBWithStateRefused(t *testing.T) {
	for _, truncate := range []bool{true, false} {
		home, path := buildStore(t)
		os.MkdirAll(filepath.Join(home, "shadow"), 0o700)
		if truncate {
			os.WriteFile(path, nil, 0o600)
		} else {
			os.Remove(path)
		}
		_, err := Open(home, Options{Evidence: []string{"shadow"}})
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "shadow") {
			t.Fatalf("truncate=%v: got %v", truncate, err)
		}
		if fi, err := os.Stat(path); truncate && (err != nil || fi.Size() != 0) || !truncate && err == nil {
			t.Fatalf("truncate=%v: the lost database was recreated", truncate)
		}
	}
	// A home with nothing else in it is new.
	s, err := Open(t.TempDir(), Options{Evidence: []string{"shadow"}})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// TestLostLastEventRefusesWrites deletes a branch's last event with bbolt directly: opening
// notices it, reads still work, every write is refused naming the way out, in this process
// and the next, and verify reports it.
func TestLostLastEventRefusesWrites(t *testing.T) {
	home, path := buildStore(t)
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(eventsBucket).Bucket([]byte("side")).Delete(seqKey(160))
	})
	db.Close()
	for round := 0; round < 2; round++ {
		s, err := Open(home, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d := s.Damaged(); d == nil || !strings.Contains(d.Error(), "side") {
			t.Fatalf("round %d: damage not noticed: %v", round, d)
		}
		if evs, err := s.ReadRange("main", 1, 10); err != nil || len(evs) != 10 {
			t.Fatalf("reads stop working: %v", err)
		}
		_, err = s.Append("main", rec(1))
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "exo doctor") {
			t.Fatalf("round %d: write into a damaged store: %v", round, err)
		}
		if err := s.PutRecord(Settings, "x", []byte("y")); err == nil {
			t.Fatal("record write into a damaged store")
		}
		rep, err := s.VerifyAll()
		if err != nil || rep.OK() {
			t.Fatalf("verify: %+v %v", rep, err)
		}
		s.Close()
	}
}

// TestTamperFoundByVerifyRefusesWrites changes an event in the middle of a chain: verify
// names it and from then on writes are refused, across processes, until verify passes again.
func TestTamperFoundByVerifyRefusesWrites(t *testing.T) {
	home, path := buildStore(t)
	var orig []byte
	TamperEvent(t, path, "main", 40, func(v []byte) { orig = append([]byte(nil), v...); v[len(v)-40] ^= 1 })
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append("main", rec(1)); err != nil {
		t.Fatalf("damage in the middle is only found by verify, so writes go on until then: %v", err)
	}
	if rep, _ := s.VerifyAll(); rep.OK() {
		t.Fatal("tamper not found")
	}
	if _, err := s.Append("main", rec(2)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("write after a failed verify: %v", err)
	}
	s.Close()
	s, _ = Open(home, Options{})
	if _, err := s.Append("main", rec(2)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("the next process writes into the damaged store: %v", err)
	}
	s.Close()
	TamperEvent(t, path, "main", 40, func(v []byte) { copy(v, orig) })
	s, _ = Open(home, Options{})
	defer s.Close()
	if rep, err := s.VerifyAll(); err != nil || !rep.OK() {
		t.Fatalf("repaired store: %+v %v", rep, err)
	}
	if _, err := s.Append("main", rec(3)); err != nil {
		t.Fatalf("a store verified sound refuses writes: %v", err)
	}
}

// TestMigratesSchema1 opens a version 1 file (no heads bucket): heads are recorded and the
// schema moves to 2.
func TestMigratesSchema1(t *testing.T) {
	home, path := buildStore(t)
	db, _ := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	db.Update(func(tx *bolt.Tx) error {
		tx.DeleteBucket(headsBucket)
		return tx.Bucket(metaBucket).Put(metaSchemaKey, seqKey(1))
	})
	db.Close()
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.Schema(); v != SchemaVersion {
		t.Fatalf("schema %d", v)
	}
	if s.Damaged() != nil {
		t.Fatal(s.Damaged())
	}
	if h, _, err := s.Head("empty"); err != nil || h != 50 {
		t.Fatalf("head of an empty fork: %d %v", h, err)
	}
	if _, err := s.Append("side", rec(1)); err != nil {
		t.Fatal(err)
	}
	if rep, err := s.VerifyAll(); err != nil || !rep.OK() {
		t.Fatalf("%+v %v", rep, err)
	}
}
