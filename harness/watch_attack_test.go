package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"exo/sandbox"
)

// watchedSessions opens a session per name in ws, each given its baseline by a command.
func watchedSessions(t *testing.T, h *Harness, ws string, names ...string) []string {
	t.Helper()
	var ids []string
	for _, name := range names {
		s, err := h.NewSession(NewSessionOptions{Name: name, Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.UserExec(context.Background(), s.ID, "echo "+name+" > "+name+".txt", ExecOptions{}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	return ids
}

// snapshotsOf lists the paths a session's workspace snapshots changed, external or its own.
func snapshotsOf(h *Harness, id string, external bool) map[string]bool {
	out := map[string]bool{}
	evs, _ := h.Events(id, 0, 0)
	for _, e := range evs {
		if e.Type != TypeWorkspaceSnapshot {
			continue
		}
		p, _ := Decode(e)
		if ws := p.(*WorkspaceSnapshot); ws.External == external {
			for _, c := range ws.Changed {
				out[c.Path] = true
			}
		}
	}
	return out
}

// waitEach waits until every session of ids recorded a snapshot (external or not) of path.
func waitEach(t *testing.T, h *Harness, ids []string, path string, external bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for _, id := range ids {
		for !snapshotsOf(h, id, external)[path] {
			if time.Now().After(deadline) {
				t.Fatalf("session %s recorded no snapshot (external %v) of %s", id, external, path)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// editUntilSeen writes a new file in ws until every session of ids recorded one as an external
// edit: a watcher just started may still be walking the tree, and sees only what comes after.
func editUntilSeen(t *testing.T, h *Harness, ids []string, ws string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; ; i++ {
		os.WriteFile(filepath.Join(ws, "edit-"+strconv.Itoa(i)+".txt"), []byte("x"), 0o644)
		seen := 0
		for j := 0; j < 10 && seen < len(ids); j++ {
			seen = 0
			for _, id := range ids {
				for p := range snapshotsOf(h, id, true) {
					if strings.HasPrefix(p, "edit-") {
						seen++
						break
					}
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		if seen == len(ids) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of the sessions %v recorded an edit from outside", seen, ids)
		}
	}
}

// TestSharedWatcherKilledMidCommand kills -9 the watcher three sessions of a directory share
// while one of them runs a command writing files: one watcher comes back for all, and every
// session records the files (each session's log is its own truth: the command's session as
// its own change, however the siblings' looks fall, the others as an external edit, each of
// them, not only the first to look).
func TestSharedWatcherKilledMidCommand(t *testing.T) {
	ws := t.TempDir()
	h := openTest(t, Options{SandboxHelper: testHelper()})
	ids := watchedSessions(t, h, ws, "a", "b", "c")
	waitWatchers(t, ws, 1)
	killed := sandbox.WatcherPIDs(ws)[0]

	ran := make(chan error, 1)
	go func() {
		_, err := h.UserExec(context.Background(), ids[0],
			"echo 1 > tool1.txt; while [ ! -e go.flag ]; do sleep 0.02; done; rm go.flag; echo 2 > tool2.txt", ExecOptions{})
		ran <- err
	}()
	waitFor(t, "the command's first file", func() bool { _, err := os.Stat(filepath.Join(ws, "tool1.txt")); return err == nil })
	if err := syscall.Kill(killed, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a new watcher", func() bool { p := sandbox.WatcherPIDs(ws); return len(p) == 1 && p[0] != killed })
	os.WriteFile(filepath.Join(ws, "go.flag"), nil, 0o644)
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	waitEach(t, h, ids[:1], "tool1.txt", false)
	waitEach(t, h, ids[:1], "tool2.txt", false)
	waitEach(t, h, ids[1:], "tool1.txt", true)
	waitEach(t, h, ids[1:], "tool2.txt", true)
	if ext := snapshotsOf(h, ids[0], true); ext["tool1.txt"] || ext["tool2.txt"] {
		t.Fatalf("the command's own files are external in its session's log: %v", ext)
	}
	os.WriteFile(filepath.Join(ws, "later.txt"), []byte("x"), 0o644)
	waitEach(t, h, ids, "later.txt", true)
	if p := sandbox.WatcherPIDs(ws); len(p) != 1 {
		t.Fatalf("watchers after the restart: %v, want one", p)
	}
}

// gatedHelper writes a helper that runs the test binary, except that a watcher of gate
// first says so (creates gate/.. /reached) and waits for release to exist, and a watcher
// started while fail exists fails at once.
func gatedHelper(t *testing.T, gate, release, fail string) []string {
	dir := t.TempDir()
	script := filepath.Join(dir, "helper.sh")
	body := fmt.Sprintf(`#!/bin/sh
case " $* " in
*" --workspace-watch "*)
	[ -e %[1]q ] && { echo "refused to start" >&2; exit 3; }
	case " $* " in *" --root %[2]s "*)
		: > %[3]q
		while [ ! -e %[4]q ]; do sleep 0.02; done;;
	esac;;
esac
exec %[5]q "$@"
`, fail, gate, filepath.Join(dir, "reached"), release, os.Args[0])
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{script, sandbox.HelperCommand}
}

// TestSlowWatcherStartBlocksNoOtherSession: the first walk of a large tree takes seconds; while
// one directory's watcher starts, sessions of other directories start and stop theirs, and a
// second session of the slow directory shares the one being started.
func TestSlowWatcherStartBlocksNoOtherSession(t *testing.T) {
	slow, fast := t.TempDir(), t.TempDir()
	release := filepath.Join(t.TempDir(), "release")
	helper := gatedHelper(t, slow, release, filepath.Join(t.TempDir(), "never"))
	reached := filepath.Join(filepath.Dir(helper[0]), "reached")
	h := openTest(t, Options{SandboxHelper: helper})
	t.Cleanup(func() { os.WriteFile(release, nil, 0o644) })

	s1, err := h.NewSession(NewSessionOptions{Name: "slow1", Workspace: slow})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan error, 1)
	go func() {
		_, err := h.UserExec(context.Background(), s1.ID, "true", ExecOptions{})
		started <- err
	}()
	waitFor(t, "the slow watcher's start", func() bool { _, err := os.Stat(reached); return err == nil })

	done := make(chan []string, 1)
	go func() { done <- watchedSessions(t, h, fast, "fast") }()
	var f []string
	select {
	case f = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("a session of another directory waited for the slow watcher's start")
	}
	waitWatchers(t, fast, 1)
	closed := make(chan struct{})
	go func() { h.CloseSandbox(f[0]); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("closing a session of another directory waited for the slow watcher's start")
	}
	waitWatchers(t, fast, 0)
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	s2 := watchedSessions(t, h, slow, "slow2")

	os.WriteFile(release, nil, 0o644)
	waitWatchers(t, slow, 1)
	editUntilSeen(t, h, []string{s1.ID, s2[0]}, slow)
	h.CloseSandbox(s1.ID)
	h.CloseSandbox(s2[0])
	waitWatchers(t, slow, 0)
}

// TestWatcherThatCannotRestartIsTold: a watcher killed and refused a restart is told in each
// session's log, once for the outage (not at each retry), and the watch resumes for all once
// a restart succeeds.
func TestWatcherThatCannotRestartIsTold(t *testing.T) {
	ws := t.TempDir()
	fail := filepath.Join(t.TempDir(), "fail")
	h := openTest(t, Options{SandboxHelper: gatedHelper(t, filepath.Join(t.TempDir(), "none"), fail, fail)})
	ids := watchedSessions(t, h, ws, "a", "b")
	waitWatchers(t, ws, 1)
	os.WriteFile(fail, nil, 0o644)
	syscall.Kill(sandbox.WatcherPIDs(ws)[0], syscall.SIGKILL)
	warnedOnceThenWatched(t, h, ids, ws, fail, "watcher")
}

// TestOneWatcherForEveryPathToADirectory: a directory reached by a symlink, a trailing slash
// or a ".." is followed by one watcher, of the real folder; a link inside the workspace to a
// folder outside widens neither what is watched nor what is recorded.
func TestOneWatcherForEveryPathToADirectory(t *testing.T) {
	base, outside := t.TempDir(), t.TempDir()
	ws := filepath.Join(base, "ws")
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	link := filepath.Join(base, "link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(ws)
	paths := []string{ws, link, ws + "/", filepath.Join(ws, "sub") + "/..", link + "/sub/.."}
	bind := filepath.Join(t.TempDir(), "bind")
	os.Mkdir(bind, 0o755)
	if err := syscall.Mount(ws, bind, "", syscall.MS_BIND, ""); err != nil {
		t.Logf("no bind mount (%v): that path is not tried", err)
	} else {
		t.Cleanup(func() { syscall.Unmount(bind, syscall.MNT_DETACH) })
		paths = append(paths, bind)
	}
	h := openTest(t, Options{SandboxHelper: testHelper()})
	var ids []string
	for i, p := range paths {
		ids = append(ids, watchedSessions(t, h, p, "s"+strconv.Itoa(i))...)
	}
	waitWatchers(t, real, 1)
	for _, p := range []string{link, bind} {
		if n := watchersOf(t, p); n != 0 {
			t.Fatalf("%d watchers follow %s, the same folder as %s", n, p, real)
		}
	}
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside"), 0o644)
	editUntilSeen(t, h, ids, ws)
	for _, id := range ids {
		for p := range snapshotsOf(h, id, true) {
			if strings.HasPrefix(p, "out/") {
				t.Fatalf("session %s recorded %s, beyond the link out of the workspace", id, p)
			}
		}
	}
}

// TestSessionsOfADirectoryComeAndGoAtOnce starts, closes and starts again sessions of one
// directory concurrently: no watcher is left once all are closed, and one follows the
// directory for a session opened after.
func TestSessionsOfADirectoryComeAndGoAtOnce(t *testing.T) {
	ws := t.TempDir()
	h := openTest(t, Options{SandboxHelper: testHelper()})
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			for j := range 3 {
				s, err := h.NewSession(NewSessionOptions{Name: fmt.Sprintf("s%d-%d", i, j), Workspace: ws})
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := h.UserExec(context.Background(), s.ID, "true", ExecOptions{}); err != nil {
					t.Error(err)
				}
				h.CloseSandbox(s.ID)
			}
		})
	}
	wg.Wait()
	waitWatchers(t, ws, 0)
	ids := watchedSessions(t, h, ws, "last")
	waitWatchers(t, ws, 1)
	editUntilSeen(t, h, ids, ws)
	h.Close()
	waitWatchers(t, ws, 0)
}

// TestWatcherThatCannotStartIsRetried: a watcher that cannot start (the inotify watches used
// up, a failing helper) is told in the logs of the sessions of the directory, those that join
// it meanwhile too, and tried again until it runs; before, it was only logged by the daemon and
// the sessions went without one for the daemon's life.
func TestWatcherThatCannotStartIsRetried(t *testing.T) {
	ws := t.TempDir()
	fail := filepath.Join(t.TempDir(), "fail")
	os.WriteFile(fail, nil, 0o644)
	h := openTest(t, Options{SandboxHelper: gatedHelper(t, filepath.Join(t.TempDir(), "none"), fail, fail)})
	ids := watchedSessions(t, h, ws, "a", "b")
	warnedOnceThenWatched(t, h, ids, ws, fail, "refused to start")
}

// TestLeavingEndsAHungWatcherStart: a watcher whose first walk hangs (a hung mount) does not
// hold up its session's close, and the last session leaving ends the start and its process.
func TestLeavingEndsAHungWatcherStart(t *testing.T) {
	slow := t.TempDir()
	release := filepath.Join(t.TempDir(), "release")
	helper := gatedHelper(t, slow, release, filepath.Join(t.TempDir(), "never"))
	reached := filepath.Join(filepath.Dir(helper[0]), "reached")
	h := openTest(t, Options{SandboxHelper: helper})
	t.Cleanup(func() { os.WriteFile(release, nil, 0o644) })
	ids := watchedSessions(t, h, slow, "a", "b")
	waitFor(t, "the hung watcher's start", func() bool { _, err := os.Stat(reached); return err == nil })
	closed := make(chan struct{})
	go func() {
		for _, id := range ids {
			h.CloseSandbox(id)
		}
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("closing the sessions waited for the hung watcher's start")
	}
	waitWatchers(t, slow, 0)
}

// TestASiblingsChangeIsNotASessionsOwn: two sessions share a directory (and its shadow
// repository). A file one session's command writes is recorded in the other's log as an
// external change when the other next snapshots, never among the other's own changes (its
// governance would count it as its own: scope, drift, conflicts).
func TestASiblingsChangeIsNotASessionsOwn(t *testing.T) {
	ws := t.TempDir()
	h := openTest(t, Options{SandboxHelper: testHelper()})
	ids := watchedSessions(t, h, ws, "a", "b")
	for _, id := range ids {
		h.CloseSandbox(id) // no watcher: b learns of a's change only at its own next snapshot
	}
	if _, err := h.UserExec(context.Background(), ids[0], "echo mine > a-only.txt", ExecOptions{}); err != nil {
		t.Fatal(err)
	}
	h.CloseSandbox(ids[0])
	if _, err := h.UserExec(context.Background(), ids[1], "echo mine > b-only.txt", ExecOptions{}); err != nil {
		t.Fatal(err)
	}
	own, ext := snapshotsOf(h, ids[1], false), snapshotsOf(h, ids[1], true)
	if own["a-only.txt"] || !own["b-only.txt"] {
		t.Fatalf("b's own changes %v: want b-only.txt and not a's a-only.txt", own)
	}
	if !ext["a-only.txt"] {
		t.Fatalf("b's external changes %v: want a's a-only.txt", ext)
	}
}

// warnedOnceThenWatched waits until each session of ids was warned of the watcher's outage (a
// warning whose text holds about), ends the outage by removing fail, and checks that outside
// edits are recorded again and that each session was warned once.
func warnedOnceThenWatched(t *testing.T, h *Harness, ids []string, ws, fail, about string) {
	t.Helper()
	warnings := func(id string) int {
		n := 0
		evs, _ := h.Events(id, 0, 0)
		for _, e := range evs {
			if e.Type == TypeAgentWarning && strings.Contains(string(e.Data), about) {
				n++
			}
		}
		return n
	}
	waitFor(t, "a warning in each session", func() bool { return warnings(ids[0]) > 0 && warnings(ids[1]) > 0 })
	os.Remove(fail)
	waitWatchers(t, ws, 1)
	editUntilSeen(t, h, ids, ws)
	for _, id := range ids {
		if n := warnings(id); n != 1 {
			t.Errorf("session %s was warned %d times of one outage", id, n)
		}
	}
}
