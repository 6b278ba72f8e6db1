package store

import (
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestForkCreatesNoEventsBucket: a fork writes its branch record only; its events bucket and
// its head record come with its first append. Until then it reads as the parent's history, its head is
// the fork point, it verifies, and it survives a reopen; the first append chains as before.
func TestForkCreatesNoEventsBucket(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	s.NewBranch("root")
	mustAppend(t, s, "root", 10, 5)
	if _, err := s.Fork("f", "root", 6); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Schema(); err != nil || v != SchemaVersion {
		t.Fatalf("schema %d %v", v, err)
	}
	check := func(s *Store, head uint64) {
		t.Helper()
		seq, h, err := s.Head("f")
		if err != nil || seq != head {
			t.Fatalf("head %d %v, want %d", seq, err, head)
		}
		evs, err := s.ReadRange("f", 1, 0)
		if err != nil || uint64(len(evs)) != head || evs[len(evs)-1].Hash != h {
			t.Fatalf("read %d events %v", len(evs), err)
		}
		if rep, err := s.VerifyAll(); err != nil || !rep.OK() {
			t.Fatalf("verify %+v %v", rep, err)
		}
	}
	check(s, 6)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(dir+"/"+DBName, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		if tx.Bucket([]byte(pathEvents)).Bucket([]byte("f")) != nil {
			t.Error("the fork has an events bucket before its first append")
		}
		if tx.Bucket(headsBucket).Get([]byte("f")) != nil {
			t.Error("the fork has a head record before its first append")
		}
		return nil
	})
	db.Close()
	s, err = Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check(s, 6)
	mustAppend(t, s, "f", 3, 3)
	check(s, 9)
}

// TestSchema2FileRecordsCurrentAtItsFirstBranch: a schema 2 file opens without a write and
// stays 2 until a branch is created in it, which records the current version (a build that
// reads only 2 then refuses it).
func TestSchema2FileRecordsCurrentAtItsFirstBranch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	s.NewBranch("root")
	mustAppend(t, s, "root", 4, 4)
	s.Close()
	db, err := bolt.Open(dir+"/"+DBName, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(pathMeta)).Put(metaSchemaKey, seqKey(schemaHeads))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err = Open(dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, err := s.Schema(); err != nil || v != schemaHeads {
		t.Fatalf("schema after open %d %v, want %d", v, err, schemaHeads)
	}
	if _, err := s.Fork("f", "root", 2); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Schema(); err != nil || v != SchemaVersion {
		t.Fatalf("schema after a fork %d %v, want %d", v, err, SchemaVersion)
	}
}
