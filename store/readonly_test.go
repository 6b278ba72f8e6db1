package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadOnlyHomeReadsAndVerifies: a home that cannot be written (a read-only mount, a copy
// this user may only read) opens for reading: its events read back, verification passes, and
// every write is refused with ErrReadOnly, changing nothing on disk. (As root a folder cannot be
// made unwritable, so the test names the home read-only as Open would have found it; the end-
// to-end test in app/e2e mounts one read-only.)
func TestReadOnlyHomeReadsAndVerifies(t *testing.T) {
	home := t.TempDir()
	s, err := Open(home, Options{Vocabulary: testVocab})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.NewBranch("main"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "main", 50, 7)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(home, DBName))
	if err != nil {
		t.Fatal(err)
	}
	ro := fmt.Errorf("%s is on a read-only file system: %w", home, ErrReadOnly)
	r, err := Open(home, Options{Vocabulary: testVocab, readOnly: ro})
	if err != nil {
		t.Fatalf("a read-only home does not open: %v", err)
	}
	if !errors.Is(r.ReadOnly(), ErrReadOnly) {
		t.Fatalf("ReadOnly() = %v", r.ReadOnly())
	}
	evs, err := r.ReadRange("main", 1, 50)
	if err != nil || len(evs) != 50 {
		t.Fatalf("read back %d events: %v", len(evs), err)
	}
	rep, err := r.VerifyAll()
	if err != nil || !rep.OK() {
		t.Fatalf("verify of a read-only home: %v %+v", err, rep)
	}
	if _, err := r.Append("main", rec(99)); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("append to a read-only home: %v", err)
	}
	if _, err := r.NewBranch("other"); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("new branch in a read-only home: %v", err)
	}
	if err := r.PutRecord(RecordBucket("sessions"), "k", []byte("v")); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("a record in a read-only home: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(home, DBName))
	if string(after) != string(before) {
		t.Fatal("opening a read-only home changed its database")
	}
	// With no database there is nothing to read, and nothing may be created.
	if _, err := Open(t.TempDir(), Options{readOnly: ro}); err == nil || !strings.Contains(err.Error(), "cannot be created") {
		t.Fatalf("an empty read-only home: %v", err)
	}
}
