package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// watchParentEnv makes the test binary a process that watches the folder it names and says
// "ready" (TestMain): a daemon the test can kill.
const watchParentEnv = "EXO_TEST_WATCH_PARENT"

// watchParentMain watches dir until it is killed.
func watchParentMain(dir string) int {
	if _, err := Watch(context.Background(), dir, WatchOptions{Helper: []string{os.Args[0], HelperCommand}}); err != nil {
		os.Stdout.WriteString(err.Error() + "\n")
		return 1
	}
	os.Stdout.WriteString("ready\n")
	select {}
}

// TestWatcherDiesWithItsParent kills -9 a process watching a folder while its watcher cannot
// read (stopped, as one stuck in the kernel on a hung mount would be): the watcher must not
// stay behind, following the workspace for no one.
func TestWatcherDiesWithItsParent(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), watchParentEnv+"="+ws)
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		parent.Process.Kill()
		parent.Wait()
		for _, pid := range WatcherPIDs(ws) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
		t.Fatalf("the watching process said %q", line)
	}
	pids := WatcherPIDs(ws)
	if len(pids) != 1 {
		t.Fatalf("watcher processes of %s: %v, want one", ws, pids)
	}
	if err := syscall.Kill(pids[0], syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	parent.Process.Kill()
	parent.Wait()
	waitNoWatcher(t, ws)
}

// TestWatcherOutlivesTheThreadThatStartedIt: the watcher dies with exo's process, but the
// kernel sends that signal when the thread that started it ends, and Go ends a thread whose
// locked goroutine returns locked. A Watch called from such a goroutine must keep its watcher.
func TestWatcherOutlivesTheThreadThatStartedIt(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	restarted := make(chan error, 8)
	type started struct {
		ch  <-chan Changes
		err error
		tid int
	}
	done := make(chan started)
	var s started
	for s.tid == 0 {
		go func() {
			runtime.LockOSThread()
			if syscall.Gettid() == syscall.Getpid() { // Go keeps the main thread: try another
				runtime.UnlockOSThread()
				done <- started{}
				return
			}
			// never unlocked: this thread ends with the goroutine
			ch, err := Watch(ctx, ws, WatchOptions{Debounce: 20 * time.Millisecond, OnRestart: func(err error) { restarted <- err }})
			done <- started{ch, err, syscall.Gettid()}
		}()
		s = <-done
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	pids := WatcherPIDs(ws)
	task := fmt.Sprintf("/proc/self/task/%d", s.tid)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(task); os.IsNotExist(err) {
			break // the thread that called Watch has ended
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread %d did not end", s.tid)
		}
	}
	for i := 0; ; i++ {
		os.WriteFile(filepath.Join(ws, "f"), []byte{byte(i)}, 0o644)
		select {
		case c := <-s.ch:
			if c.Overflow {
				t.Fatalf("the watcher restarted: %v", <-restarted)
			}
			if got := WatcherPIDs(ws); len(got) != 1 || len(pids) != 1 || got[0] != pids[0] {
				t.Fatalf("watcher processes %v, then %v: want the same one", pids, got)
			}
			return
		case err := <-restarted:
			t.Fatalf("the watcher ended with the thread that started it: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("no change reported")
		}
	}
}
