package workspaces

import (
	"os"
	"path/filepath"
	"testing"

	"exo/harness/eventlog"
	"exo/harness/runtimes"
	"exo/harness/sealed"
	"exo/harness/sessions"
	"exo/store"
)

// openRooms opens the rooms below the workspaces on a fresh EXO_HOME, and the workspaces on
// them, without the harness: the tests here start no session's sandbox.
func openRooms(t *testing.T) *Workspaces {
	t.Helper()
	home := t.TempDir()
	st, err := eventlog.OpenStore(home, eventlog.StoreConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sec, err := sealed.Open(st, []string{home})
	if err != nil {
		t.Fatal(err)
	}
	log := eventlog.New(st, eventlog.Options{})
	dir := sessions.New(log, sec, sessions.Hooks{})
	rt := runtimes.New(log, dir, sec, runtimes.Options{Home: home, Private: []string{home}})
	return New(log, dir, sec, rt, Options{Home: home, Private: []string{home}})
}

// TestGCNeverLeavesExoHome: gc only removes folders named like exo's own under EXO_HOME.
func TestGCNeverLeavesExoHome(t *testing.T) {
	h := openRooms(t)
	odd := filepath.Join(h.opts.Home, "tmp", "keep-me")
	if err := os.MkdirAll(odd, 0o700); err != nil {
		t.Fatal(err)
	}
	if h.owned(filepath.Dir(h.opts.Home)) || h.owned("/") || h.owned(odd) {
		t.Fatal("owned() claims a folder that is not exo's")
	}
	if err := h.removeOwned(t.TempDir()); err == nil {
		t.Fatal("removeOwned removed a folder outside EXO_HOME")
	}
	if _, err := h.GC(false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(odd); err != nil {
		t.Fatal("gc removed a folder that is not a session's")
	}
}

// TestGCKeepsAForkThatEndsMidway: a fork is making its working copy (journaled, the folder on
// disk) when exo gc starts, and records its session while gc reads what is referenced (between
// its read of the journal and of the sessions). The working copy must survive: read the other
// way round, gc saw neither the journal entry nor the session and removed it.
func TestGCKeepsAForkThatEndsMidway(t *testing.T) {
	h := openRooms(t)
	dst := filepath.Join(h.opts.Home, "workspaces", eventlog.NewID())
	if err := os.MkdirAll(filepath.Join(dst, "src"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dst, "src", "main.go"), []byte("package main\n"), 0o600)
	clone := eventlog.NewJournal(eventlog.OpForkClone)
	clone.Dir = dst
	if err := h.st.Update(func(tx *store.Tx) error { return eventlog.PutJournal(tx, clone) }); err != nil {
		t.Fatal(err)
	}
	ended := false
	gcBetweenReads = func() {
		if ended {
			return
		}
		ended = true
		// the fork ends: its session recorded, then its journal entry dropped
		if _, err := h.dir.NewSession(sessions.NewSessionOptions{Name: "forked", Workspace: dst}); err != nil {
			t.Error(err)
		}
		if err := h.st.Update(func(tx *store.Tx) error { return eventlog.DropJournal(tx, clone.ID) }); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { gcBetweenReads = func() {} })
	rep, err := h.GC(false)
	if err != nil {
		t.Fatal(err)
	}
	if !ended {
		t.Fatal("the fork's end never landed between gc's reads")
	}
	if _, err := os.Stat(filepath.Join(dst, "src", "main.go")); err != nil {
		t.Fatalf("gc removed a fork's new working copy (report %+v): %v", rep.Items, err)
	}
	// and a working copy nothing references any more is still collected
	orphan := filepath.Join(h.opts.Home, "workspaces", eventlog.NewID())
	os.MkdirAll(orphan, 0o700)
	if _, err := h.GC(false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Fatalf("an unreferenced working copy was kept: %v", err)
	}
}
