package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// collect reads batches until want paths have all been seen or the deadline passes.
func collect(t *testing.T, ch <-chan Changes, want []string) []string {
	t.Helper()
	seen := map[string]bool{}
	deadline := time.After(5 * time.Second)
	for {
		missing := false
		for _, w := range want {
			missing = missing || !seen[w]
		}
		if !missing {
			var all []string
			for p := range seen {
				all = append(all, p)
			}
			slices.Sort(all)
			return all
		}
		select {
		case b := <-ch:
			for _, p := range b.Paths {
				seen[p] = true
			}
		case <-deadline:
			t.Fatalf("saw %v, want %v", seen, want)
		}
	}
}

func TestWatchReportsChangesRecursively(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, "a.txt", "a")
	write(t, ws, "sub/b.txt", "b")
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.MkdirAll(filepath.Join(ws, "node_modules"), 0o755)
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := Watch(ctx, ws, WatchOptions{Debounce: 30 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws, "a.txt", "changed")
	write(t, ws, "sub/b.txt", "changed")
	write(t, ws, "new/deeper/c.txt", "created with its dirs")
	write(t, ws, ".git/index", "ignored")
	write(t, ws, "node_modules/x.js", "ignored")
	got := collect(t, ch, []string{"a.txt", "sub/b.txt", "new/deeper/c.txt"})
	for _, p := range got {
		if p == ".git/index" || p == "node_modules/x.js" || p == ".git" {
			t.Fatalf("skipped dir reported: %v", got)
		}
	}
	write(t, ws, "new/deeper/d.txt", "in a directory added after start")
	collect(t, ch, []string{"new/deeper/d.txt"})
	cancel()
	for range ch { // the channel closes after cancel.
	}
}
