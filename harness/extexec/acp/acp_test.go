package acp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/exectest"
)

func TestOwnAgentUsesExosFilesAndTerminal(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	var streamed strings.Builder
	x := f.executor(t, Options{Command: []string{tinyAgent(t)}, Exec: executor.Options{OnDelta: func(_, d string) { mu.Lock(); streamed.WriteString(d); mu.Unlock() }}})
	res, err := x.Prompt(context.Background(), f.s.ID, "do the tiny thing", "test")
	okResult(t, res, err)
	if b, err := os.ReadFile(filepath.Join(f.ws, "acp.txt")); err != nil || string(b) != "written by tinyagent\n" {
		t.Fatalf("acp.txt: %q %v", b, err)
	}
	mu.Lock()
	got := streamed.String()
	mu.Unlock()
	if !strings.Contains(got, "Read back: written by tinyagent") || !strings.Contains(got, "terminal-ok") {
		t.Fatalf("streamed %q", got)
	}
	evs := f.events(t, f.s.ID)
	started := exectest.Payloads[harness.ToolStarted](t, evs, harness.TypeToolStarted)
	var tools []string
	for _, s := range started {
		tools = append(tools, s.Tool)
	}
	if strings.Join(tools, " ") != "fs/write_text_file fs/read_text_file terminal/create" {
		t.Fatalf("tools %v (events %s)", tools, exectest.Types(evs))
	}
	if !strings.Contains(exectest.Types(evs), "task.started") || len(exectest.Payloads[harness.WorkspaceSnapshot](t, evs, harness.TypeWorkspaceSnapshot)) < 2 {
		t.Fatalf("no task or snapshot: %s", exectest.Types(evs))
	}
	sel := exectest.Payloads[harness.ExecutorSelected](t, evs, harness.TypeExecutorSelected)
	if len(sel) != 1 || sel[0].Version != "tinyagent 1.0" || !strings.HasPrefix(sel[0].Name, "acp:") {
		t.Fatalf("executor.selected %+v", sel)
	}
}

func TestOwnAgentWriteOutsideTheWorkspaceRefused(t *testing.T) {
	f := newFixture(t)
	// The agent writes to its cwd, which is the workspace; an executor whose workspace check is
	// the scope makes the same write a refusal.
	x := f.executor(t, Options{Command: []string{tinyAgent(t)}, Exec: executor.Options{CheckWrite: func(_, rel string) error {
		return &scopeErr{rel}
	}}})
	res, err := x.Prompt(context.Background(), f.s.ID, "do the tiny thing", "test")
	okResult(t, res, err)
	if _, err := os.Stat(filepath.Join(f.ws, "acp.txt")); !os.IsNotExist(err) {
		t.Fatalf("the refused write happened: %v", err)
	}
	if len(exectest.Payloads[harness.PolicyViolation](t, f.events(t, f.s.ID), harness.TypePolicyViolation)) != 1 {
		t.Fatalf("no policy.violation: %s", exectest.Types(f.events(t, f.s.ID)))
	}
}

type scopeErr struct{ rel string }

func (e *scopeErr) Error() string { return e.rel + " is outside the session's scope" }
