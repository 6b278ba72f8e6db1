package sandbox

import (
	"fmt"
	"sync"
	"testing"
)

// TestSnapshottersOfOneShadowTakeTurns: sessions of one workspace each have a Snapshotter of
// the shared shadow repository. One that snapshotted before another must see the other's
// commit as its parent (a stale cached ref failed its update-ref, or made the workspace look
// unchanged), and snapshots taken at once must not fail on git's index lock.
func TestSnapshottersOfOneShadowTakeTurns(t *testing.T) {
	t.Parallel()
	ws := newRepo(t)
	shadow := ShadowDir(t.TempDir(), ws)
	a, err := NewSnapshotter(ws, shadow, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewSnapshotter(ws, shadow, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	write(t, ws, "one.txt", "1")
	first, err := b.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws, "two.txt", "2")
	second, err := a.Snapshot()
	if err != nil || second.Parent != first.Commit || !second.ParentByAnother {
		t.Fatalf("a's snapshot: %+v, %v; want the parent %s, by another", second, err, first.Commit)
	}
	write(t, ws, "three.txt", "3")
	third, err := b.Snapshot()
	if err != nil {
		t.Fatalf("b's snapshot after a's: %v", err)
	}
	if third.Parent != second.Commit || !third.ParentByAnother || len(third.Changed) != 1 || third.Changed[0].Path != "three.txt" {
		t.Fatalf("b's snapshot after a's: %+v, want the parent %s and three.txt changed", third, second.Commit)
	}
	// b, unchanged since, sees a's newer snapshot as the head
	if again, err := b.Snapshot(); err != nil || again.ParentByAnother || len(again.Changed) != 0 {
		t.Fatalf("b's snapshot after its own: %+v, %v; want its own parent, nothing changed", again, err)
	}
	write(t, ws, "four.txt", "4")
	fourth, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := b.Head(); c != fourth.Commit {
		t.Fatalf("b's head %s, want a's latest %s", c, fourth.Commit)
	}
	changed, err := b.Diff(first.Commit, fourth.Commit)
	if err != nil || len(changed) != 3 {
		t.Fatalf("diff across the other's snapshots: %v, %v; want three files", changed, err)
	}

	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 20 {
		for j, s := range []*Snapshotter{a, b} {
			wg.Go(func() {
				write(t, ws, fmt.Sprintf("f%d-%d.txt", i, j), "x")
				if _, err := s.Snapshot(); err != nil {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	last, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := b.Head(); c != last.Commit {
		t.Fatalf("b's head %s, want %s", c, last.Commit)
	}
}
