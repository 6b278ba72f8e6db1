package workspaces

import (
	"fmt"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"exo/harness/sessions"
	"exo/sandbox"
)

// eventually polls cond (a state of processes or of the watches) until it holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited in vain for %s", what)
		}
	}
}

// watchOf returns the live watch of dir, nil if there is none.
func (r *rooms) watchOf(dir string) *sharedWatch {
	key, _, _ := watchKey(dir)
	r.watchMu.Lock()
	defer r.watchMu.Unlock()
	return r.watches[key]
}

// TestSharedWatchEndsWithItsLastSession kills -9 the watcher three sessions share: the same
// watch restarts it for all (no second watch, no second process), and once the sessions are
// closed, concurrently with sessions of the directory coming and going, no watch, process or
// delivering goroutine is left.
func TestSharedWatchEndsWithItsLastSession(t *testing.T) {
	r := openTest(t)
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	var ids []string
	for i := range 3 {
		s, err := r.NewSession(sessions.NewSessionOptions{Name: fmt.Sprint("s", i), Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Runtime(s.ID); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	eventually(t, "one watch with three sessions", func() bool {
		w := r.watchOf(ws)
		r.watchMu.Lock()
		defer r.watchMu.Unlock()
		return w != nil && len(w.sessions) == 3
	})
	w := r.watchOf(ws)
	eventually(t, "one watcher process", func() bool { return len(sandbox.WatcherPIDs(ws)) == 1 })
	killed := sandbox.WatcherPIDs(ws)[0]
	syscall.Kill(killed, syscall.SIGKILL)
	eventually(t, "the watcher restarted", func() bool { p := sandbox.WatcherPIDs(ws); return len(p) == 1 && p[0] != killed })
	if r.watchOf(ws) != w {
		t.Fatal("a second watch of the directory")
	}

	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() { r.CloseSandbox(id) })
	}
	for i := range 4 { // sessions coming and going meanwhile
		wg.Go(func() {
			s, err := r.NewSession(sessions.NewSessionOptions{Name: fmt.Sprint("c", i), Workspace: ws})
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := r.Runtime(s.ID); err != nil {
				t.Error(err)
			}
			r.CloseSandbox(s.ID)
		})
	}
	wg.Wait()
	select {
	case <-w.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the watch's delivering goroutine did not end with its last session")
	}
	r.watchMu.Lock()
	left := len(r.watches)
	r.watchMu.Unlock()
	if left != 0 {
		t.Fatalf("%d watches left after every session closed", left)
	}
	eventually(t, "no watcher process", func() bool { return len(sandbox.WatcherPIDs(ws)) == 0 })
}
