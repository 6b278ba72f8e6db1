package harness

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"exo/sandbox"
)

// watchersOf counts the live workspace watcher processes following dir.
func watchersOf(t *testing.T, dir string) int {
	t.Helper()
	return len(sandbox.WatcherPIDs(dir))
}

// waitWatchers waits until dir has want watcher processes (one that ended may take a moment
// to be reaped).
func waitWatchers(t *testing.T, dir string, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := watchersOf(t, dir)
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d watcher processes follow %s, want %d", n, dir, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitExternal waits until one of the sessions ids records an external snapshot that changed
// path (sessions of one directory share its shadow repository: the first to look records it).
func waitExternal(t *testing.T, h *Harness, ids []string, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, id := range ids {
			evs, _ := h.Events(id, 0, 0)
			for _, e := range evs {
				if e.Type != TypeWorkspaceSnapshot {
					continue
				}
				p, _ := Decode(e)
				if ws := p.(*WorkspaceSnapshot); ws.External {
					for _, c := range ws.Changed {
						if c.Path == path {
							return
						}
					}
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no session of %v recorded an external snapshot of %s", ids, path)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSessionsOfOneWorkspaceShareAWatcher: every session of one directory is followed by one
// watcher process (each session's sandbox lives as long as the daemon: one each made a process
// per session ever opened), an edit from outside is recorded, a session closed
// leaves the others watching, and the last one closed ends the watcher.
func TestSessionsOfOneWorkspaceShareAWatcher(t *testing.T) {
	ws, other := t.TempDir(), t.TempDir()
	h := openTest(t, Options{SandboxHelper: testHelper()})
	var ids []string
	for _, name := range []string{"a", "b", "c"} {
		s, err := h.NewSession(NewSessionOptions{Name: name, Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		// a change of its own gives the session its first snapshot, the baseline
		if _, err := h.UserExec(context.Background(), s.ID, "echo "+name+" > "+name+".txt", ExecOptions{}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	o, _ := h.NewSession(NewSessionOptions{Name: "other", Workspace: other})
	if _, err := h.UserExec(context.Background(), o.ID, "echo o > o.txt", ExecOptions{}); err != nil {
		t.Fatal(err)
	}
	waitWatchers(t, ws, 1)
	waitWatchers(t, other, 1)

	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("typed in an editor\n"), 0o644)
	waitExternal(t, h, ids, "notes.txt")

	h.CloseSandbox(ids[0])
	os.WriteFile(filepath.Join(ws, "more.txt"), []byte("more\n"), 0o644)
	waitExternal(t, h, ids[1:], "more.txt")
	waitWatchers(t, ws, 1)

	h.CloseSandbox(ids[1])
	h.CloseSandbox(ids[2])
	waitWatchers(t, ws, 0)
	waitWatchers(t, other, 1)
}
