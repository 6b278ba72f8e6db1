package store

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestFileChangedUnderOpenStore: exo.db changed under an open store (the daemon's) by copying
// another database into it in place (larger, smaller), by copying an older copy of itself
// back, or by cutting it: the next read (not only the next write) fails with ErrCorrupt saying
// what happened and what to do, the store is faulted, nothing panics, and every call after
// says the same; nothing reads the other contents as this store's (no empty list).
func TestFileChangedUnderOpenStore(t *testing.T) {
	other := func(events int) []byte {
		home := t.TempDir()
		o, err := Open(home, Options{})
		if err != nil {
			t.Fatal(err)
		}
		o.NewBranch("other")
		mustAppend(t, o, "other", events, 10)
		o.Close()
		b, err := os.ReadFile(home + "/" + DBName)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	sized := func(b []byte, path string) []byte { // b made as long as the file at path
		fi, _ := os.Stat(path)
		if int64(len(b)) > fi.Size() {
			t.Fatalf("the copy is longer (%d) than the file (%d)", len(b), fi.Size())
		}
		return append(b, make([]byte, fi.Size()-int64(len(b)))...)
	}
	cases := []struct {
		name, says string
		change     func(t *testing.T, s *Store, older []byte)
	}{
		{"another database, larger", "another file was copied into it", func(t *testing.T, s *Store, _ []byte) {
			os.WriteFile(s.Path(), other(3000), 0o600)
		}},
		{"another database, smaller", "a smaller file copied into it", func(t *testing.T, s *Store, _ []byte) {
			os.WriteFile(s.Path(), other(1), 0o600)
		}},
		{"another database, same size", "another database was copied over it", func(t *testing.T, s *Store, _ []byte) {
			os.WriteFile(s.Path(), sized(other(1), s.Path()), 0o600)
		}},
		{"an older copy of itself, same size", "an older copy of it", func(t *testing.T, s *Store, older []byte) {
			os.WriteFile(s.Path(), sized(older, s.Path()), 0o600)
		}},
		{"emptied", "cut from", func(t *testing.T, s *Store, _ []byte) { os.Truncate(s.Path(), 0) }},
		{"cut in half", "cut from", func(t *testing.T, s *Store, _ []byte) {
			fi, _ := os.Stat(s.Path())
			os.Truncate(s.Path(), fi.Size()/2)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Open(t.TempDir(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			s.NewBranch("main")
			mustAppend(t, s, "main", 50, 5)
			older, _ := os.ReadFile(s.Path())
			mustAppend(t, s, "main", 500, 5)
			c.change(t, s, older)
			for i := range 3 {
				got, err := s.Branches()
				if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "exo daemon stop") ||
					!strings.Contains(err.Error(), "exo verify") {
					t.Fatalf("read %d after the change: %d branches, %v", i, len(got), err)
				}
			}
			if !s.Faulted() {
				t.Fatal("the store is not faulted")
			}
			if _, err := s.Append("main", rec(1)); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("a write after the change: %v", err)
			}
			if _, err := os.Stat(s.home + "/" + DamageFile); err != nil {
				t.Fatalf("the next process is not told: %v", err)
			}
		})
	}
}

// dbid is the store's database id as it knows it (nil when not yet known).
func dbid(s *Store) []byte {
	if p := s.file.dbid.Load(); p != nil {
		return *p
	}
	return nil
}

// TestDatabaseIDKeptAndWritten: a store gets a database id with its first write and keeps it
// across opens; a database without one (made before ids) is only read by opening and reading
// it, and given one by its first write, after which another database copied in is told apart.
func TestDatabaseIDKeptAndWritten(t *testing.T) {
	home := t.TempDir()
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := dbid(s)
	if len(first) != 16 {
		t.Fatalf("a new store's id: %x", first)
	}
	s.update(func(tx kvTx) error {
		meta, _, _ := tx.bucket(pathMeta)
		return meta.del(metaIDKey)
	})
	s.Close()
	before, _ := os.ReadFile(home + "/" + DBName)
	s, err = Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if dbid(s) != nil {
		t.Fatalf("a store without an id has %x", dbid(s))
	}
	s.Branches()
	if after, _ := os.ReadFile(home + "/" + DBName); string(after) != string(before) {
		t.Fatal("opening and reading a database without an id wrote it")
	}
	s.NewBranch("main")
	_, err = s.Branches() // the first transaction that sees the id it wrote knows it
	second := dbid(s)
	if len(second) != 16 || string(second) == string(first) || err != nil {
		t.Fatalf("a store without an id was given %x (had %x): %v", second, first, err)
	}
	s.Close()
	s, _ = Open(home, Options{})
	defer s.Close()
	if string(dbid(s)) != string(second) {
		t.Fatalf("the id changed across opens: %x then %x", second, dbid(s))
	}
}
