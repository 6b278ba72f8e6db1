package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitNoWatcher waits until no watcher process of root is left.
func waitNoWatcher(t *testing.T, root string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(WatcherPIDs(root)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("watcher processes of %s still running: %v", root, WatcherPIDs(root))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWatchSurvivesRenameExchangeChurn is the attack of a hostile agent on its workspace: a
// folder and a link to a folder outside swapped with renameat2(RENAME_EXCHANGE) as fast as
// possible. In fsnotify (v1.9.0 and v1.10.1 alike) this dereferences nil within a second, once
// in the watcher's own goroutine and sometimes in fsnotify's: run in exo's process, it took the
// daemon down with every session's turn. The watcher must stay contained, come back, and still
// report changes once the churn ends.
func TestWatchSurvivesRenameExchangeChurn(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	a, b := filepath.Join(ws, "race"), filepath.Join(ws, "race_alt")
	if err := os.Mkdir(a, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, b); err != nil {
		t.Fatal(err)
	}
	var restarts atomic.Int32
	var mu sync.Mutex
	var reasons []string
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := Watch(ctx, ws, WatchOptions{Debounce: 20 * time.Millisecond, OnRestart: func(err error) {
		restarts.Add(1)
		mu.Lock()
		reasons = append(reasons, err.Error())
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	var overflow atomic.Bool
	seen := make(chan string, 1024)
	go func() {
		for c := range ch {
			if c.Overflow {
				overflow.Store(true)
			}
			for _, p := range c.Paths {
				select {
				case seen <- p:
				default:
				}
			}
		}
		close(seen)
	}()
	end := time.Now().Add(3 * time.Second)
	swaps := 0
	for time.Now().Before(end) {
		for range 1000 {
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				if errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EINVAL) {
					t.Skipf("renameat2(RENAME_EXCHANGE) is not available here: %v", err)
				}
				t.Fatal(err)
			}
			swaps++
		}
	}
	mu.Lock()
	t.Logf("%d swaps; the watcher process restarted %d times: %q", swaps, restarts.Load(), reasons)
	for _, r := range reasons {
		if !strings.HasPrefix(r, "workspace watcher: ") || len(r) < 30 {
			t.Errorf("restart reason does not say what ended: %q", r)
		}
	}
	mu.Unlock()
	if restarts.Load() > 0 && !overflow.Load() {
		// The restart's Overflow batch may still be on its way after the back-off.
		time.Sleep(watchBackoffMax + time.Second)
		if !overflow.Load() {
			t.Error("a restarted watcher did not report that changes may have been missed")
		}
	}
	// Once the churn ends, the watcher (restarted or not) reports a new file.
	deadline := time.After(watchBackoffMax + 10*time.Second)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case p, ok := <-seen:
			if !ok {
				t.Fatal("the watcher's channel closed while its context lives")
			}
			if strings.HasPrefix(p, "after-") {
				cancel()
				waitNoWatcher(t, ws)
				return
			}
		case <-tick.C: // a new file each tick, in case the first fell between two processes
			os.WriteFile(filepath.Join(ws, "after-"+strconv.Itoa(i)), []byte("x"), 0o644)
		case <-deadline:
			t.Fatalf("no change reported after the churn (restarts %d)", restarts.Load())
		}
	}
}

// TestWatchRestartsAKilledWatcher kills the watcher process as a crash would: the caller is
// told, gets an Overflow batch, and changes are reported again by the new process.
func TestWatchRestartsAKilledWatcher(t *testing.T) {
	ws := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	restarted := make(chan error, 4)
	ch, err := Watch(ctx, ws, WatchOptions{Debounce: 20 * time.Millisecond, OnRestart: func(err error) { restarted <- err }})
	if err != nil {
		t.Fatal(err)
	}
	pids := WatcherPIDs(ws)
	if len(pids) != 1 {
		t.Fatalf("want one watcher process of %s, found %v", ws, pids)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-restarted:
		if !strings.Contains(err.Error(), "ended") || !strings.Contains(err.Error(), "killed") {
			t.Errorf("restart reason %q does not say the process ended, killed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OnRestart not called after the watcher process was killed")
	}
	select {
	case c := <-ch:
		if !c.Overflow {
			t.Fatalf("first batch after a restart: %+v, want Overflow", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no Overflow batch after the watcher process was killed")
	}
	deadline := time.After(15 * time.Second)
	for i := 0; ; i++ {
		os.WriteFile(filepath.Join(ws, "n"+strconv.Itoa(i)), []byte("x"), 0o644)
		select {
		case c := <-ch:
			if len(c.Paths) > 0 {
				if got := WatcherPIDs(ws); len(got) != 1 || got[0] == pids[0] {
					t.Fatalf("watcher processes after the restart: %v (killed %d)", got, pids[0])
				}
				cancel()
				for range ch { // closes once the context ends
				}
				waitNoWatcher(t, ws)
				return
			}
		case <-time.After(300 * time.Millisecond):
		case <-deadline:
			t.Fatal("the restarted watcher reported no change")
		}
	}
}

// TestWatchBoundsABatch creates many more files than a batch holds: the batch says Overflow
// instead of growing without bound.
func TestWatchBoundsABatch(t *testing.T) {
	ws := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := Watch(ctx, ws, WatchOptions{Debounce: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 * maxPending {
		os.WriteFile(filepath.Join(ws, "f"+strconv.Itoa(i)), nil, 0o644)
	}
	total, over := 0, false
	for !over {
		select {
		case c := <-ch:
			total += len(c.Paths)
			over = over || c.Overflow
			if len(c.Paths) > maxPending {
				t.Fatalf("a batch of %d paths, over the bound %d", len(c.Paths), maxPending)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no Overflow after %d files (%d paths reported)", 3*maxPending, total)
		}
	}
}

// TestWatchStopsItsProcess checks that ending the context ends the watcher process: none is
// left behind per session.
func TestWatchStopsItsProcess(t *testing.T) {
	ws := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := Watch(ctx, ws, WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(WatcherPIDs(ws)) != 1 {
		t.Fatalf("want one watcher process, found %v", WatcherPIDs(ws))
	}
	cancel()
	for range ch {
	}
	waitNoWatcher(t, ws)
}

// TestWatchRefusesAMissingRoot reports the child's failure to walk as Watch's error.
func TestWatchRefusesAMissingRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "missing")
	_, err := Watch(context.Background(), root, WatchOptions{})
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("Watch of a missing folder: %v", err)
	}
	waitNoWatcher(t, root)
}
