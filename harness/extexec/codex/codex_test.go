package codex

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
)

func TestBashThroughExoAndEveryStepIsAnEvent(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{})
	res, err := x.Prompt(context.Background(), f.s.ID, "make a file", "test")
	okResult(t, res, err)
	if b, err := os.ReadFile(filepath.Join(f.ws, "x.txt")); err != nil || string(b) != "hi\n" {
		t.Fatalf("x.txt: %q %v", b, err)
	}
	if res.Steps != 2 || res.ToolCalls != 1 || res.Response != "Done: x.txt holds hi." || res.Cost == 0 {
		t.Fatalf("result %+v", res)
	}
	evs := f.events(t, f.s.ID)
	for _, want := range []string{"executor.selected executor.started invocation.received", "step.started model.requested model.completed tool.started",
		"tool.completed step.started model.requested model.completed agent.usage executor.result"} {
		if !strings.Contains(types(evs), want) {
			t.Fatalf("events %s\nlack %s", types(evs), want)
		}
	}
	comp := payloads[harness.ModelCompleted](t, evs, harness.TypeModelCompleted)
	tc := payloads[harness.ToolCompleted](t, evs, harness.TypeToolCompleted)
	if len(tc) != 1 || tc[0].CallID != comp[0].ToolCalls[0].ID || tc[0].Tool != "bash" || *tc[0].ExitCode != 0 {
		t.Fatalf("tool %+v, call %+v", tc, comp[0].ToolCalls)
	}
	for i, r := range f.srv.Calls() {
		if r.Header.Get("Authorization") != "Bearer "+sealedKey {
			t.Fatalf("call %d auth %q", i, r.Header.Get("Authorization"))
		}
		if bytes.Contains(r.Body, []byte(sealedKey)) {
			t.Fatalf("call %d body holds the key", i)
		}
	}
	ss := x.Session(f.s.ID)
	environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", ss.Proc.(*proc).Pid()))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(environ, []byte(sealedKey)) || bytes.Contains(environ, []byte("IS_SANDBOX")) {
		t.Fatalf("codex's environment: %q", environ)
	}
	noKeyUnder(t, ss.Dirs.Root)
}

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

func TestForkGivesCodexTheHistoryUpToTheEvent(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{})
	res, err := x.Prompt(context.Background(), f.s.ID, "remember the word PAPAYA", "test")
	okResult(t, res, err)
	var at uint64
	for _, e := range f.events(t, f.s.ID) {
		if e.Type == harness.TypeExecutorResult {
			at = e.Seq
		}
	}
	res, err = x.Prompt(context.Background(), f.s.ID, "remember the word MANGO", "test")
	okResult(t, res, err)
	child, err := f.h.Fork(f.s.ID, at, harness.ForkOptions{Name: "child"})
	if err != nil {
		t.Fatal(err)
	}
	res, err = x.Prompt(context.Background(), child.ID, "what word did I say? (fork)", "test")
	okResult(t, res, err)
	in := lastInput(t, f)
	if !bytes.Contains(in, []byte("PAPAYA")) || !bytes.Contains(in, []byte("I will remember it.")) || bytes.Contains(in, []byte("MANGO")) {
		t.Fatalf("the fork's request does not hold exactly the history up to %d:\n%s", at, in)
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
	tc := payloads[harness.ToolCompleted](t, evs, harness.TypeToolCompleted)
	if len(tc) != 2 || !tc[0].IsError || tc[1].IsError || tc[0].Tool != "exec_command" {
		t.Fatalf("results %+v", tc)
	}
	res2 := payloads[harness.ApprovalResolved](t, evs, harness.TypeApprovalResolved)
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
		t.Fatalf("y.txt: %q %v (events %s)", b, err, types(f.events(t, f.s.ID)))
	}
	evs := f.events(t, f.s.ID)
	found := false
	for _, s := range payloads[harness.WorkspaceSnapshot](t, evs, harness.TypeWorkspaceSnapshot) {
		for _, c := range s.Changed {
			found = found || c.Path == "y.txt"
		}
	}
	if !found {
		t.Fatalf("no snapshot of y.txt: %s", types(evs))
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

func TestInterruptAndDeath(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-f.srv.Hanging(); cancel() }()
	res, err := x.Prompt(ctx, f.s.ID, "slow answer please", "test")
	if err != nil || !res.Cancelled {
		t.Fatalf("interrupted turn: %v %+v", err, res)
	}
	if !strings.HasSuffix(types(f.events(t, f.s.ID)), "turn.cancelled") {
		t.Fatalf("events %s", types(f.events(t, f.s.ID)))
	}
	go func() { <-f.srv.Hanging(); x.Session(f.s.ID).Proc.(*proc).p.Kill() }()
	res, err = x.Prompt(context.Background(), f.s.ID, "slow answer again", "test")
	if err != nil || !strings.Contains(res.Failure, "codex exited") {
		t.Fatalf("turn with a dead codex: %v %+v", err, res)
	}
	res, err = x.Prompt(context.Background(), f.s.ID, "say hello", "test")
	okResult(t, res, err)
	if in := lastInput(t, f); !bytes.Contains(in, []byte("slow answer again")) {
		t.Fatalf("the next codex does not know the earlier prompts:\n%s", in)
	}
}
