package codex

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
)

// noKeyUnder fails when any file under dir (Codex's HOME, CODEX_HOME with its config, SQLite
// state, rollouts and logs, its temp folder) holds the sealed key's bytes.
func noKeyUnder(t *testing.T, dir string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		if bytes.Contains(b, []byte(sealedKey)) {
			t.Errorf("%s holds the sealed key", path)
		}
		return nil
	})
	if err != nil || n < 3 {
		t.Fatalf("searched %d files under %s: %v", n, dir, err)
	}
}

func TestNativeCommandDeniedThenAllowed(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{NativeTools: true, Exec: executor.Options{Approvals: map[string]string{"bash": "ask"}, ApprovalTimeout: time.Minute}})
	decisions := []string{executor.DecisionDeny, executor.DecisionOnce}
	ch, stop := f.h.Subscribe(256)
	defer stop()
	go func() {
		for n := range ch {
			for _, e := range n.Events {
				if e.Type != harness.TypeApprovalRequested || len(decisions) == 0 {
					continue
				}
				p, _ := harness.Decode(e)
				d := decisions[0]
				decisions = decisions[1:]
				f.h.Append(f.s.ID, harness.MustRecord(harness.TypeApprovalResolved, harness.ActorUser,
					harness.ApprovalResolved{CallID: p.(*harness.ApprovalRequested).CallID, Decision: d}))
			}
		}
	}()
	res, err := x.Prompt(context.Background(), f.s.ID, "native command please", "test")
	okResult(t, res, err)
	if b, err := os.ReadFile(filepath.Join(f.ws, "n.txt")); err != nil || string(b) != "native\n" {
		t.Fatalf("n.txt after deny then allow: %q %v", b, err)
	}
	evs := f.events(t, f.s.ID)
	tc := exectest.Payloads[harness.ToolCompleted](t, evs, harness.TypeToolCompleted)
	if len(tc) != 2 || !tc[0].IsError || tc[1].IsError || tc[0].Tool != "exec_command" {
		t.Fatalf("results %+v", tc)
	}
	res2 := exectest.Payloads[harness.ApprovalResolved](t, evs, harness.TypeApprovalResolved)
	if len(res2) != 2 || res2[0].Decision != "deny" || res2[1].Decision != "once" {
		t.Fatalf("approvals %+v", res2)
	}
}

func TestNativePatchSnapshottedAndUndoneByRewind(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{NativeTools: true})
	res, err := x.Prompt(context.Background(), f.s.ID, "native patch please", "test")
	okResult(t, res, err)
	if b, err := os.ReadFile(filepath.Join(f.ws, "y.txt")); err != nil || string(b) != "hello from a patch\n" {
		t.Fatalf("y.txt: %q %v (events %s)", b, err, exectest.Types(f.events(t, f.s.ID)))
	}
	evs := f.events(t, f.s.ID)
	found := false
	for _, s := range exectest.Payloads[harness.WorkspaceSnapshot](t, evs, harness.TypeWorkspaceSnapshot) {
		for _, c := range s.Changed {
			found = found || c.Path == "y.txt"
		}
	}
	if !found {
		t.Fatalf("no snapshot of y.txt: %s", exectest.Types(evs))
	}
	var at uint64
	for _, e := range evs {
		if e.Type == harness.TypeExecutorSelected {
			at = e.Seq
		}
	}
	for i, r := range f.srv.Calls() {
		if bytes.Contains(r.Body, []byte(sealedKey)) {
			t.Fatalf("call %d body holds the key", i)
		}
	}
	noKeyUnder(t, x.Session(f.s.ID).Dirs.Root)
	if _, err := f.h.Rewind(f.s.ID, at); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "y.txt")); !os.IsNotExist(err) {
		t.Fatalf("rewind left y.txt: %v", err)
	}
}
