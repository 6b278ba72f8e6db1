package claude

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"exo/harness"
	"exo/harness/executor"
)

func TestBashRunsInExoSandboxAndEveryStepIsAnEvent(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	var streamed strings.Builder
	x := f.executor(t, Options{Exec: executor.Options{OnDelta: func(_, d string) { mu.Lock(); streamed.WriteString(d); mu.Unlock() }}})
	res, err := x.Prompt(context.Background(), f.s.ID, "make a file", "test")
	okResult(t, res, err)
	if b, err := os.ReadFile(filepath.Join(f.ws, "x.txt")); err != nil || string(b) != "hi\n" {
		t.Fatalf("x.txt: %q %v", b, err)
	}
	if res.Steps != 2 || res.ToolCalls != 1 || !strings.Contains(res.Response, "x.txt holds hi") || res.Usage.Input == 0 || res.Cost == 0 {
		t.Fatalf("result %+v", res)
	}
	mu.Lock()
	if !strings.Contains(streamed.String(), "Running a command.") {
		t.Fatalf("deltas not streamed: %q", streamed.String())
	}
	mu.Unlock()
	evs := f.events(t, f.s.ID)
	got := types(evs)
	for _, want := range []string{"executor.selected executor.started invocation.received", "step.started model.requested model.completed tool.started",
		"workspace.snapshot tool.completed step.started model.requested model.completed executor.result"} {
		if !strings.Contains(got, want) {
			t.Fatalf("events %s\nlack %s", got, want)
		}
	}
	comp := payloads[harness.ModelCompleted](t, evs, harness.TypeModelCompleted)
	if len(comp[0].ToolCalls) != 1 || comp[0].ToolCalls[0].Name != "bash" || comp[0].Usage.Input == 0 || comp[0].Cost == 0 {
		t.Fatalf("first model.completed %+v", comp[0])
	}
	tc := payloads[harness.ToolCompleted](t, evs, harness.TypeToolCompleted)
	if len(tc) != 1 || tc[0].Tool != "bash" || tc[0].CallID != comp[0].ToolCalls[0].ID || tc[0].ExitCode == nil || *tc[0].ExitCode != 0 || !strings.Contains(tc[0].Output, "hi") {
		t.Fatalf("tool.completed %+v", tc)
	}
	for _, e := range evs {
		if e.Type == harness.TypeToolStarted && e.Actor != "executor:claude-code" {
			t.Fatalf("tool.started actor %q", e.Actor)
		}
	}
	st, _ := f.h.State(f.s.ID)
	if st.Executor != Name || st.ModelCalls != 2 || st.Cost == 0 || st.Status != harness.StatusIdle {
		t.Fatalf("state %+v", st)
	}
	// The sealed key reached the provider on every call, and nothing else.
	msgs := f.srv.Messages()
	if len(msgs) != 2 {
		t.Fatalf("%d model calls", len(msgs))
	}
	for _, r := range msgs {
		if r.Header.Get("X-Api-Key") != sealedKey {
			t.Fatalf("provider saw key %q", r.Header.Get("X-Api-Key"))
		}
	}
}
