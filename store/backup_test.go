package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestBackupConsistentWhileAppending: a backup taken while another goroutine appends is a
// sound database: opened as a store of its own, every chain verifies and it holds a prefix of
// what was appended; restored over the original (closed) file it opens and takes appends again.
func TestBackupConsistentWhileAppending(t *testing.T) {
	home := t.TempDir()
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.NewBranch("main"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "main", 300, 10)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := s.Append("main", rec(1000+i)); err != nil {
				t.Errorf("append during backup: %v", err)
				return
			}
		}
	}()
	dir := t.TempDir()
	var copies []string
	for i := range 5 {
		p := filepath.Join(dir, "b"+string(rune('0'+i))+".db")
		n, err := s.Backup(context.Background(), p, nil)
		if err != nil {
			t.Fatalf("backup %d: %v", i, err)
		}
		if fi, err := os.Stat(p); err != nil || fi.Size() != n || fi.Mode().Perm() != 0o600 {
			t.Fatalf("backup %d: %v size %d mode %v, reported %d", i, err, fi.Size(), fi.Mode(), n)
		}
		copies = append(copies, p)
	}
	close(stop)
	wg.Wait()
	headSeq, _, _ := s.Head("main")
	for _, p := range copies {
		h2 := t.TempDir()
		b, _ := os.ReadFile(p)
		os.WriteFile(filepath.Join(h2, DBName), b, 0o600)
		c, err := Open(h2, Options{})
		if err != nil {
			t.Fatalf("the copy %s does not open: %v", p, err)
		}
		rep, err := c.VerifyAll()
		seq, _, _ := c.Head("main")
		c.Close()
		if err != nil || !rep.OK() {
			t.Fatalf("the copy %s does not verify: %+v %v", p, rep, err)
		}
		if seq < 300 || seq > headSeq {
			t.Fatalf("the copy holds %d events; the original had 300 before and %d after", seq, headSeq)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != len(copies) {
		t.Fatalf("temporary files left beside the backups: %d entries", len(ents))
	}
	// Restore: the original closed, a backup copied over its file.
	s.Close()
	b, _ := os.ReadFile(copies[0])
	if err := os.WriteFile(filepath.Join(home, DBName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Open(home, Options{})
	if err != nil {
		t.Fatalf("the restored store does not open: %v", err)
	}
	defer r.Close()
	if _, err := r.Append("main", rec(5000)); err != nil {
		t.Fatalf("the restored store takes no appends: %v", err)
	}
}

// TestBackupRefusals: an existing file, a planted link (to a file that must survive), a missing
// folder and a damaged store are refused with a clear error and nothing written.
func TestBackupRefusals(t *testing.T) {
	s := openTest(t, Options{})
	s.NewBranch("main")
	mustAppend(t, s, "main", 20, 5)
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep me"), 0o644)
	os.Symlink(victim, filepath.Join(dir, "link.db"))
	os.WriteFile(filepath.Join(dir, "exists.db"), []byte("old backup"), 0o600)
	for _, name := range []string{"exists.db", "link.db"} {
		if _, err := s.Backup(context.Background(), filepath.Join(dir, name), nil); !errors.Is(err, os.ErrExist) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Fatalf("the link's target was written: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "exists.db")); string(b) != "old backup" {
		t.Fatalf("an existing backup was overwritten: %q", b)
	}
	if _, err := s.Backup(context.Background(), filepath.Join(dir, "no", "such", "dir.db"), nil); err == nil {
		t.Fatal("a backup into a missing folder succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Fatalf("the refusals left files: %d entries", len(ents))
	}

	home, path := buildStore(t)
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error { return tx.Bucket(eventsBucket).Bucket([]byte("side")).Delete(seqKey(160)) })
	db.Close()
	d, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Backup(context.Background(), filepath.Join(dir, "damaged.db"), nil); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "back up") {
		t.Fatalf("backup of a damaged store: %v", err)
	}
}

// TestBackupTempFiles: both ways of writing a backup (a file without a name, and the named
// file beside the path where the file system makes no unnamed one) leave only the backup, 0600
// and whole, also when the path is refused; a backup whose caller gave up leaves nothing; a named file a killed backup left is swept, and
// nothing else in the folder is.
func TestBackupTempFiles(t *testing.T) {
	s := openTest(t, Options{})
	s.NewBranch("main")
	mustAppend(t, s, "main", 50, 5)
	for _, named := range []bool{false, true} {
		namedBackupTemps = named
		dir := t.TempDir()
		p := filepath.Join(dir, "b.db")
		if _, err := s.Backup(context.Background(), p, nil); err != nil {
			t.Fatalf("named %v: %v", named, err)
		}
		if _, err := s.Backup(context.Background(), p, nil); !errors.Is(err, os.ErrExist) {
			t.Fatalf("named %v: a second backup at the path: %v", named, err)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 || ents[0].Name() != "b.db" {
			t.Fatalf("named %v: the folder holds %v", named, ents)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Fatalf("named %v: the backup's mode is %v", named, fi.Mode())
		}
		if err := checkFile(p, true); err != nil {
			t.Fatalf("named %v: %v", named, err)
		}
	}
	namedBackupTemps = false
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	if _, err := s.Backup(gone, filepath.Join(dir, "c.db"), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("a backup its caller gave up: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("a backup its caller gave up left %v", ents)
	}
	left := filepath.Join(dir, "exo-1.db.partial-0123456789ab")
	keep := []string{"exo-1.db", "notes.partial-xyz", "exo-2.db.partial-0123"}
	os.WriteFile(left, []byte("half a copy"), 0o600)
	for _, k := range keep {
		os.WriteFile(filepath.Join(dir, k), []byte("x"), 0o600)
	}
	os.Mkdir(filepath.Join(dir, "d.partial-0123456789ab"), 0o700)
	if n, err := SweepPartialBackups(dir); n != 1 || err != nil {
		t.Fatalf("sweep: %d %v", n, err)
	}
	if _, err := os.Lstat(left); !os.IsNotExist(err) {
		t.Fatalf("the partial copy is still there: %v", err)
	}
	for _, k := range append(keep, "d.partial-0123456789ab") {
		if _, err := os.Lstat(filepath.Join(dir, k)); err != nil {
			t.Fatalf("the sweep removed %s", k)
		}
	}
	if n, err := SweepPartialBackups(filepath.Join(dir, "missing")); n != 0 || err != nil {
		t.Fatalf("sweep of a missing folder: %d %v", n, err)
	}
}
