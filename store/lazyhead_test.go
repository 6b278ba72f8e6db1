package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// hasHeadRecord reports whether a branch has a head record.
func hasHeadRecord(t *testing.T, s *Store, branch string) bool {
	t.Helper()
	var ok bool
	err := s.View(func(tx *Tx) error {
		var err error
		_, _, ok, err = tx.headRecord(branch)
		return err
	})
	if err != nil {
		t.Fatalf("head record of %s: %v", branch, err)
	}
	return ok
}

// confLazyHead: a fork writes its branch record only, which holds its head until the first
// append writes the head record; the head reads the same before and after a reopen; a head
// record lost after the first append is damage.
func confLazyHead(t *testing.T, be backend) {
	s := be.open(t)
	s.NewBranch("m")
	mustAppend(t, s, "m", 10, 5)
	if _, err := s.Fork("f", "m", 6); err != nil {
		t.Fatal(err)
	}
	if hasHeadRecord(t, s, "f") {
		t.Fatal("a fork wrote a head record")
	}
	m6, err := s.ReadRange("m", 6, 6)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		if round == 1 {
			s = be.reopen(t, s)
		}
		if seq, h, err := s.Head("f"); err != nil || seq != 6 || h != m6[0].Hash {
			t.Fatalf("head of a fork: %d %s %v, want 6 %s", seq, h.Short(), err, m6[0].Hash.Short())
		}
		if rep, err := s.VerifyAll(); err != nil || !rep.OK() {
			t.Fatalf("verify: %+v %v", rep, err)
		}
	}
	evs, err := s.Append("f", rec(1))
	if err != nil || evs[0].Seq != 7 || evs[0].Hash != ComputeHash(m6[0].Hash, &evs[0]) {
		t.Fatalf("first append: %+v %v", evs, err)
	}
	if !hasHeadRecord(t, s, "f") {
		t.Fatal("the first append wrote no head record")
	}
	if seq, h, err := s.Head("f"); err != nil || seq != 7 || h != evs[0].Hash {
		t.Fatalf("head after the first append: %d %v", seq, err)
	}
	rawPut(t, s, []byte("f"), nil, pathHeads)
	if _, _, err := s.Head("f"); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "head record was lost") {
		t.Fatalf("head with its head record lost: %v", err)
	}
	s = be.reopen(t, s)
	if err := s.Damaged(); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("reopened store with a lost head record is not damaged: %v", err)
	}
	if _, err := s.Append("f", rec(2)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("append after a lost head record: %v", err)
	}
}

// confConcurrentForks: forks and first appends from many goroutines: one fork of a name
// wins, the others fail with ErrBranchExists; concurrent first appends to one fork all land,
// each once, on one chain; every branch verifies.
func confConcurrentForks(t *testing.T, be backend) {
	s := be.open(t)
	s.NewBranch("m")
	mustAppend(t, s, "m", 20, 10)
	const workers, per = 6, 4
	var wg sync.WaitGroup
	errs := make(chan error, workers*(per+2))
	won := make(chan int, workers)
	for w := range workers {
		wg.Go(func() {
			switch _, err := s.Fork("same", "m", 5); {
			case err == nil:
				won <- w
			case !errors.Is(err, ErrBranchExists):
				errs <- fmt.Errorf("fork of one name: %w", err)
			}
			id := fmt.Sprint("own", w)
			if _, err := s.Fork(id, "m", uint64(w+1)); err != nil {
				errs <- err
				return
			}
			if _, err := s.Append(id, rec(w), rec(w+100)); err != nil {
				errs <- fmt.Errorf("first append to %s: %w", id, err)
			}
		})
	}
	wg.Wait()
	close(won)
	if n := len(won); n != 1 {
		t.Fatalf("%d forks of one name succeeded", n)
	}
	for w := range workers { // first appends racing on the fork that won
		wg.Go(func() {
			for i := range per {
				if _, err := s.Append("same", rec(100*w+i)); err != nil {
					errs <- fmt.Errorf("append to same: %w", err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if seq, _, err := s.Head("same"); err != nil || seq != 5+workers*per {
		t.Fatalf("head of same %d %v, want %d", seq, err, 5+workers*per)
	}
	for w := range workers {
		if seq, _, err := s.Head(fmt.Sprint("own", w)); err != nil || seq != uint64(w+3) {
			t.Fatalf("head of own%d %d %v", w, seq, err)
		}
	}
	if rep, err := s.VerifyAll(); err != nil || !rep.OK() || rep.Branches != workers+2 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}

// openFixture copies a database written by an earlier build into a fresh home and opens it.
func openFixture(t *testing.T, name string) *Store {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name, DBName))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, DBName), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(home, Options{NoSync: true})
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestSchema3FileKeepsWorking opens a database the build before schema 4 wrote (a head record
// for every branch from its creation; testdata/schema3: main 1..20, side forked at 12 with 5
// events, empty at 7 and zero at 0 of main, a root bare, deep at 15 of side, the last four
// never appended to): it opens without a write, every head reads as that build's, it
// verifies, its branches take appends, and the first branch created records schema 4.
func TestSchema3FileKeepsWorking(t *testing.T) {
	t.Parallel()
	s := openFixture(t, "schema3")
	if v, err := s.Schema(); err != nil || v != 3 {
		t.Fatalf("schema %d %v, want 3 (opening writes nothing)", v, err)
	}
	if err := s.Damaged(); err != nil {
		t.Fatal(err)
	}
	main, err := s.ReadRange("main", 0, 0)
	if err != nil || len(main) != 20 {
		t.Fatalf("main: %d events %v", len(main), err)
	}
	side, err := s.ReadRange("side", 13, 0)
	if err != nil || len(side) != 5 {
		t.Fatalf("side: %d events %v", len(side), err)
	}
	want := map[string]struct {
		seq uint64
		h   Hash
	}{"main": {20, main[19].Hash}, "side": {17, side[4].Hash}, "empty": {7, main[6].Hash}, "zero": {0, Hash{}}, "bare": {0, Hash{}}, "deep": {15, side[2].Hash}}
	for id, w := range want {
		if !hasHeadRecord(t, s, id) {
			t.Fatalf("%s has no head record in the fixture", id)
		}
		if seq, h, err := s.Head(id); err != nil || seq != w.seq || h != w.h {
			t.Fatalf("head of %s: %d %s %v, want %d %s", id, seq, h.Short(), err, w.seq, w.h.Short())
		}
	}
	if rep, err := s.VerifyAll(); err != nil || !rep.OK() || rep.Branches != 6 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	for _, id := range []string{"empty", "zero", "bare", "deep", "side"} {
		if _, err := s.Append(id, rec(1)); err != nil {
			t.Fatalf("append to %s: %v", id, err)
		}
	}
	if v, _ := s.Schema(); v != 3 {
		t.Fatalf("appends recorded schema %d", v)
	}
	if _, err := s.Fork("new", "deep", 16); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Schema(); v != SchemaVersion {
		t.Fatalf("schema after a fork %d, want %d", v, SchemaVersion)
	}
	if hasHeadRecord(t, s, "new") {
		t.Fatal("a fork in a schema 3 file wrote a head record")
	}
	if rep, err := s.VerifyAll(); err != nil || !rep.OK() || rep.Branches != 7 {
		t.Fatalf("verify after writes: %+v %v", rep, err)
	}
}

// TestOlderBranchWithoutHeadRecordIsDamage: a branch of the earlier layout (its record holds
// no head) whose head record is gone is damage, as before schema 4, even with no events of
// its own; a branch of the new layout without one is not.
func TestOlderBranchWithoutHeadRecordIsDamage(t *testing.T) {
	t.Parallel()
	s := openFixture(t, "schema3")
	if _, err := s.Fork("new", "main", 3); err != nil {
		t.Fatal(err)
	}
	home := s.Home()
	s.Close()
	db, err := bolt.Open(filepath.Join(home, DBName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(headsBucket).Delete([]byte("empty")) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err = Open(home, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Damaged(); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "empty has no head record") {
		t.Fatalf("an older branch without its head record: %v", err)
	}
	if seq, _, err := s.Head("new"); err != nil || seq != 3 {
		t.Fatalf("head of a new fork: %d %v", seq, err)
	}
}

// TestBadForkHashIsDamage: a branch record whose head is not a hash (cut, not hex) is damage,
// said as such, not a branch with an empty head.
func TestBadForkHashIsDamage(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{`"abc"`, `"` + strings.Repeat("zz", 32) + `"`, `42`} {
		s := openTest(t, Options{NoSync: true})
		s.NewBranch("m")
		mustAppend(t, s, "m", 3, 3)
		s.Fork("f", "m", 2)
		raw := fmt.Sprintf(`{"id":"f","parent":"m","fork_seq":2,"created":"2026-11-29T05:00:00Z","fork_hash":%s}`, bad)
		rawPut(t, s, []byte("f"), []byte(raw), pathBranches)
		s.branches.Delete("f") // as a process that has not read it yet
		if _, _, err := s.Head("f"); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "decode branch f") {
			t.Fatalf("fork_hash %s: %v", bad, err)
		}
	}
}
