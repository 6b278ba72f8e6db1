package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// scriptHelper writes a shell script standing in for the watcher process (it is run with the
// watcher's arguments and must print what a watcher prints) and returns it as a Helper, with
// the function that waits until no process it started is left.
func scriptHelper(t *testing.T, body string) ([]string, func()) {
	dir := t.TempDir()
	script, pids := filepath.Join(dir, "watcher.sh"), filepath.Join(dir, "pids")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho $$ >> "+pids+"\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	gone := func() {
		t.Helper()
		b, _ := os.ReadFile(pids)
		for _, pid := range strings.Fields(string(b)) {
			deadline := time.Now().Add(10 * time.Second)
			for running(pid) {
				if time.Now().After(deadline) {
					t.Fatalf("watcher process %s still running", pid)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	return []string{script, HelperCommand}, gone
}

// running reports whether process pid exists and is not a zombie.
func running(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// TestWatchRefusesAGarbledStart: a watcher process that prints garbage (invalid UTF-8, not
// JSON) instead of saying it is ready fails Watch with a clear error, and leaves no process.
func TestWatchRefusesAGarbledStart(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	helper, gone := scriptHelper(t, `printf '\377\376garbage\n'; exec sleep 60`)
	_, err := Watch(context.Background(), ws, WatchOptions{Helper: helper})
	if err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Fatalf("Watch with a garbling watcher: %v, want an error saying the message was malformed", err)
	}
	gone()
}

// TestWatchSurvivesAGarblingOrFloodingWatcher: a watcher that says it is ready and then prints
// garbage is restarted (the reason told), one that floods batches is read as fast as the
// caller takes them, and either ends with the caller's context, process and channel alike.
func TestWatchSurvivesAGarblingOrFloodingWatcher(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"garbage": `echo '{"ready":true}'; printf '{"paths":["\377"]}\n\000\377 not json\n'; exec sleep 60`,
		"flood":   `echo '{"ready":true}'; exec yes '{"paths":["a","b"],"overflow":true}'`,
		"exits":   `echo '{"ready":true}'; echo '{"paths":["x"]}'; exit 0`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			restarts := make(chan error, 100)
			helper, gone := scriptHelper(t, body)
			ch, err := Watch(ctx, ws, WatchOptions{Helper: helper, OnRestart: func(err error) {
				select {
				case restarts <- err:
				default:
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			for range 3 { // batches keep coming: the watcher's or the restarts' Overflow
				select {
				case <-ch:
				case <-time.After(20 * time.Second):
					t.Fatal("no batch")
				}
			}
			if name == "garbage" {
				if err := <-restarts; !strings.Contains(err.Error(), "malformed") {
					t.Errorf("restart reason %q does not say the message was malformed", err)
				}
			}
			cancel()
			for range ch { // closes once the context ends, flood or not
			}
			gone()
		})
	}
}

// TestWatchTellsTheLastWordOfAWatcher: the error a watcher process prints as it ends is the
// reason told, not lost with its output closed as it exits.
func TestWatchTellsTheLastWordOfAWatcher(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	helper, gone := scriptHelper(t, `echo '{"ready":true}'; echo '{"paths":["x"]}'; echo '{"error":"the last word"}'; exit 1`)
	restarts := make(chan error, 100)
	ch, err := Watch(ctx, ws, WatchOptions{Helper: helper, OnRestart: func(err error) {
		select {
		case restarts <- err:
		default:
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	drained := make(chan struct{})
	go func() {
		for range ch {
		}
		close(drained)
	}()
	for range 3 {
		select {
		case err := <-restarts:
			if !strings.Contains(err.Error(), "the last word") {
				t.Fatalf("restart reason %q lacks the watcher's last message", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("no restart")
		}
	}
	cancel()
	<-drained
	gone()
}
