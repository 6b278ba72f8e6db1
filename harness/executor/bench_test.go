package executor

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/provider/providertest"
	"exo/sandbox"
	"exo/store"
)

// benchTurn returns the records of one turn with a tool call, as the executor writes them.
func benchTurn(i int) []store.Record {
	code := 0
	id := fmt.Sprint("c", i)
	a := harness.ExecutorActor("default")
	return []store.Record{
		harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: fmt.Sprintf("prompt %d: make the slow path faster", i)}),
		harness.MustRecord(harness.TypeModelCompleted, a, harness.ModelCompleted{Text: "Looking.", ToolCalls: []harness.ToolCall{{ID: id, Name: "bash", Arguments: []byte(`{"command":"ls"}`)}}}),
		harness.MustRecord(harness.TypeToolStarted, harness.ToolActor("bash"), harness.ToolStarted{CallID: id, Tool: "bash"}),
		harness.MustRecord(harness.TypeToolCompleted, harness.ToolActor("bash"), harness.ToolCompleted{CallID: id, Tool: "bash", Output: "main.go\nREADME.md", ExitCode: &code}),
		harness.MustRecord(harness.TypeModelCompleted, a, harness.ModelCompleted{Text: fmt.Sprintf("Answer %d: rebuild the prompt view incrementally.", i)}),
	}
}

// BenchmarkPromptView measures bringing the prompt view up to date after one new event, at 1k
// and 100k events of history: the cost must follow the new events, not the history.
func BenchmarkPromptView(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			h, err := harness.Open(b.TempDir(), harness.Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			s, _ := h.NewSession(harness.NewSessionOptions{Name: "bench"})
			for i := 0; i < n/5; i++ {
				if _, err := h.Append(s.ID, benchTurn(i)...); err != nil {
					b.Fatal(err)
				}
			}
			x := New(h, Options{})
			if _, err := x.ViewOf(s.Branch, "gpt-4.1"); err != nil {
				b.Fatal(err)
			}
			rec := harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "and one more thing"})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				h.Append(s.ID, rec)
				b.StartTimer()
				v, err := x.ViewOf(s.Branch, "gpt-4.1")
				if err != nil || len(v.Messages) == 0 {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStepOverhead runs one-step turns of one session against a local zero-latency Chat
// Completions server and reports the harness's own time per step: the turn's wall time minus the
// time spent inside the model call (request encoding, HTTP and stream decoding by the SDK).
// With fsync every commit waits for the disk; without, the figure is exo's own work.
func BenchmarkStepOverhead(b *testing.B) {
	for _, sync := range []bool{true, false} {
		name := "fsync"
		if !sync {
			name = "nosync"
		}
		b.Run(name, func(b *testing.B) { stepOverhead(b, sync) })
	}
}

func stepOverhead(b *testing.B, sync bool) {
	srv := providertest.NewChatServer(20, "ok ")
	defer srv.Close()
	h, err := harness.Open(b.TempDir(), harness.Options{NoSync: !sync, SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	h.RegisterModel(harness.ModelSpec{Name: "local", Provider: "openai-compatible", ModelID: "bench", BaseURL: srv.BaseURL()})
	x := New(h, Options{Headless: true})
	// One session: its first turn (sandbox start, first snapshot of the workspace) is warm-up.
	s, _ := h.NewSession(harness.NewSessionOptions{Workspace: b.TempDir()})
	if _, err := x.Prompt(context.Background(), s.ID, "hi", "bench"); err != nil {
		b.Fatal(err)
	}
	var own, model time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := x.Prompt(context.Background(), s.ID, "hi", "bench")
		if err != nil || res.Failure != "" || res.Steps != 1 {
			b.Fatalf("%v %s", err, res.Failure)
		}
		m := time.Duration(x.lastModel.Load())
		own += time.Since(t0) - m
		model += m
	}
	b.ReportMetric(float64(own)/float64(b.N)/1e6, "harness-ms/step")
	b.ReportMetric(float64(model)/float64(b.N)/1e6, "model-ms/call")
}
