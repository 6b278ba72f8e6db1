package harness

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// pruneChildEnv names the EXO_HOME of TestPruneCrashChild; pruneChildOp what it does there.
const (
	pruneChildEnv = "EXO_PRUNE_CHILD_HOME"
	pruneChildOp  = "EXO_PRUNE_CHILD_OP"
)

// TestPruneCrashChild is the child half of TestKillDuringPrune: it opens the harness at the
// home it is given, checkpointing every 8 events, and runs exo gc ("gc") or appends turns to
// session "old", each checkpoint pruning the older ones ("append"), until a failpoint kills it.
func TestPruneCrashChild(t *testing.T) {
	home := os.Getenv(pruneChildEnv)
	if home == "" {
		t.Skip("child process of TestKillDuringPrune")
	}
	h, err := Open(home, Options{CheckpointEvery: 8})
	if err != nil {
		t.Fatal(err)
	}
	switch os.Getenv(pruneChildOp) {
	case "gc":
		_, err = h.GC(false)
	case "append":
		s, _ := h.Session("old")
		h.State(s.ID)
		for i := 0; i < 40 && err == nil; i++ {
			_, err = h.Append(s.ID, turn(1000+i)...)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	os.Exit(7) // the failpoint was never reached
}

// TestKillDuringPrune SIGKILLs exo at every step of checkpoint pruning: between a checkpoint
// and its prune, after a prune's commit, before its sweep, in exo gc before it prunes, after
// each branch it prunes and after each folder it removes. Each time, the store opens and
// verifies, every branch's state at every seq read from what is kept equals a full replay of
// the log, the next gc completes without a problem (nothing prunable left, the orphaned folders
// gone), and the session takes appends.
func TestKillDuringPrune(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	fixture := t.TempDir()
	h, err := Open(fixture, Options{CheckpointEvery: 8})
	if err != nil {
		t.Fatal(err)
	}
	h.SetKeepCheckpoints(true) // as before retention: every checkpoint kept
	s, _ := h.NewSession(NewSessionOptions{Name: "old"})
	h.State(s.ID)
	for i := 0; i < 60; i++ {
		if _, err := h.Append(s.ID, turn(i)...); err != nil {
			t.Fatal(err)
		}
	}
	f, err := h.Fork(s.ID, 200, ForkOptions{Name: "fork"})
	if err != nil {
		t.Fatal(err)
	}
	h.State(f.ID)
	for i := 0; i < 30; i++ {
		h.Append(f.ID, turn(500+i)...)
	}
	for _, id := range []string{"0123456789abcdef", "fedcba9876543210"} { // a dead sandbox's folders
		os.MkdirAll(filepath.Join(fixture, "tmp", id, "sub"), 0o700)
		os.WriteFile(filepath.Join(fixture, "tmp", id, "sub", "f"), []byte("x"), 0o600)
	}
	h.Close()

	for _, c := range []struct{ op, fp string }{
		{"gc", "gc.before-checkpoints"}, {"gc", "prune.commit"}, {"gc", "prune.before-sweep"},
		{"gc", "prune.commit#2"}, {"gc", "gc.remove"}, {"append", "checkpoint.stored"},
		{"append", "prune.commit"}, {"append", "prune.commit#3"}, {"append", "prune.before-sweep#2"},
	} {
		t.Run(c.op+"/"+c.fp, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "home")
			if out, err := exec.Command("cp", "-a", fixture, home).CombinedOutput(); err != nil {
				t.Fatalf("copy the fixture: %v %s", err, out)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestPruneCrashChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), pruneChildEnv+"="+home, pruneChildOp+"="+c.op, "EXO_FAILPOINT="+c.fp)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the child was not killed at %s: %v\n%s", c.fp, err, out)
			}
			checkAfterPruneKill(t, home)
		})
	}
}

// checkAfterPruneKill opens a home whose harness was killed while pruning and checks it.
func checkAfterPruneKill(t *testing.T, home string) {
	t.Helper()
	h, err := Open(home, Options{CheckpointEvery: 8})
	if err != nil {
		t.Fatalf("open after the kill: %v", err)
	}
	defer h.Close()
	if rep, err := h.st.VerifyAll(); err != nil || !rep.OK() {
		t.Fatalf("verify after the kill: %+v %v", rep, err)
	}
	all, _ := h.Sessions()
	if len(all) != 2 {
		t.Fatalf("%d sessions after the kill", len(all))
	}
	sameAsReplay := func(when string) {
		for _, s := range all {
			full, _, err := h.LoadState(s.Branch, 0, false)
			if err != nil {
				t.Fatal(err)
			}
			for seq := uint64(1); seq <= full.Head; seq += 13 {
				cp, _, err := h.LoadState(s.Branch, seq, true)
				if err != nil {
					t.Fatalf("%s: %s at %d: %v", when, s.Name, seq, err)
				}
				at, _, _ := h.LoadState(s.Branch, seq, false)
				cp.LastActivity = at.LastActivity
				if !reflect.DeepEqual(cp, at) {
					t.Fatalf("%s: %s at %d from a checkpoint differs from a replay", when, s.Name, seq)
				}
			}
			st, err := h.State(s.ID)
			if err != nil {
				t.Fatalf("%s: open %s: %v", when, s.Name, err)
			}
			cp := *st
			cp.LastActivity = full.LastActivity
			if !reflect.DeepEqual(&cp, full) {
				t.Fatalf("%s: %s opens differently from a replay", when, s.Name)
			}
		}
	}
	sameAsReplay("after the kill")
	rep, err := h.GC(false)
	if err != nil || len(rep.Problems) > 0 {
		t.Fatalf("gc after the kill: %+v %v", rep, err)
	}
	if again, _ := h.GC(true); again.Checkpoints != 0 || len(again.Items) != 0 {
		t.Fatalf("gc left %d prunable checkpoints and %v", again.Checkpoints, again.Items)
	}
	if left, _ := filepath.Glob(filepath.Join(home, "tmp", "*")); len(left) != 0 {
		t.Fatalf("gc left %v", left)
	}
	sameAsReplay("after gc")
	s, _ := h.Session("old")
	if _, err := h.Append(s.ID, turn(9999)...); err != nil {
		t.Fatalf("append after the kill: %v", err)
	}
}
