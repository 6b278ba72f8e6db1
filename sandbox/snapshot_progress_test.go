package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestSnapshotReportsProgress: the first snapshot of a 3,000-file workspace reports scanning,
// then counts up to every file staged, never past the total.
func TestSnapshotReportsProgress(t *testing.T) {
	ws := t.TempDir()
	for i := 0; i < 3000; i++ {
		dir := filepath.Join(ws, fmt.Sprintf("d%02d", i%30))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%04d.txt", i)), []byte(fmt.Sprintf("file %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := NewSnapshotter(ws, filepath.Join(t.TempDir(), "shadow.git"), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var mu sync.Mutex
	var calls []Progress
	s.OnProgress(func(p Progress) {
		mu.Lock()
		calls = append(calls, p)
		mu.Unlock()
	})
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Changed) != 3000 {
		t.Fatalf("%d files in the snapshot", len(snap.Changed))
	}
	if len(calls) < 4 || calls[0] != (Progress{0, -1, false}) || calls[len(calls)-1] != (Progress{3000, 3000, true}) {
		t.Fatalf("progress calls %v", calls)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i].Total != 3000 || calls[i].Done < calls[i-1].Done && i > 1 || calls[i].Done > 3000 {
			t.Fatalf("progress went wrong at %d: %v", i, calls)
		}
	}
	calls = nil
	if _, err := s.Snapshot(); err != nil { // nothing changed: scanning only
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0] != (Progress{0, -1, false}) || !calls[1].Finished {
		t.Fatalf("an unchanged workspace: %v", calls)
	}
}
