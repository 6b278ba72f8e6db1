package harness

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"exo/harness/eventlog"
	"exo/store"
	"exo/store/etcdtest"
)

// realisticTurn is a turn of typical sizes: a 300-byte prompt, a 3 KiB tool output and a
// 2 KiB answer.
func realisticTurn(i int) []store.Record {
	code := 0
	line := func(n int, s string) string { return strings.Repeat(s, n/len(s)+1)[:n] }
	call := fmt.Sprint("c", i)
	return []store.Record{
		MustRecord(TypeInvocationReceived, ActorUser, InvocationReceived{Text: fmt.Sprintf("prompt %d: %s", i, line(300, "make the slow path faster; "))}),
		MustRecord(TypeStepStarted, ExecutorActor("default"), StepStarted{Step: 1}),
		MustRecord(TypeModelRequested, ExecutorActor("default"), ModelRequested{Model: "scripted", Messages: i}),
		MustRecord(TypeModelCompleted, ExecutorActor("default"), ModelCompleted{Model: "scripted", ToolCalls: []ToolCall{{ID: call, Name: "bash", Arguments: json.RawMessage(`{"command":"go test ./..."}`)}}, Usage: Usage{Input: 1000, Output: 50}, StopReason: "tool_use"}),
		MustRecord(TypeToolStarted, ToolActor("bash"), ToolStarted{CallID: call, Tool: "bash", Args: json.RawMessage(`{"command":"go test ./..."}`)}),
		MustRecord(TypeToolCompleted, ToolActor("bash"), ToolCompleted{CallID: call, Tool: "bash", Output: line(3<<10, "ok  \texo/store\t1.234s\n"), ExitCode: &code, DurationMs: 1200}),
		MustRecord(TypeModelCompleted, ExecutorActor("default"), ModelCompleted{Model: "scripted", Text: line(2<<10, "The slow path rebuilt the prompt view on every call. "), Usage: Usage{Input: 1500, Output: 400}, StopReason: "end_turn"}),
	}
}

// BenchmarkEtcdOpenSession opens a 100k-event session kept in a three-member etcd cluster the
// way the daemon does when it is not in memory (LoadState: head, newest checkpoint, the events
// after it). The checkpoints are the real Session projection of that session (checkpoints
// every 512 events), hundreds of KiB each, so stored in parts.
func BenchmarkEtcdOpenSession(b *testing.B) {
	c := etcdtest.Start(b, 3, etcdtest.Options{})
	url := fmt.Sprintf("etcd://%s/bench-open?node=n", strings.Join(c.Endpoints, ","))
	h, err := Open(b.TempDir(), Options{Store: url, SandboxHelper: testHelper()})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	s, err := h.NewSession(NewSessionOptions{Name: "long", Workspace: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	h.State(s.ID) // cached: appends checkpoint as they go
	const n = 100_000
	for i := 0; ; i += 10 {
		st, _ := h.State(s.ID)
		if st.Head >= n {
			break
		}
		var recs []store.Record
		for j := range 10 {
			recs = append(recs, realisticTurn(i+j)...)
		}
		if _, err := h.Append(s.ID, recs...); err != nil {
			b.Fatal(err)
		}
	}
	st, _ := h.State(s.ID)
	var at uint64
	var size int
	h.st.View(func(tx *store.Tx) error {
		var blob []byte
		at, blob, _, err = tx.LatestCheckpoint(eventlog.SessionProjection, s.Branch, 0)
		size = len(blob)
		return err
	})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		got, applied, err := h.LoadState(s.Branch, 0, true)
		if err != nil || got.Head != st.Head || applied != st.Head-at {
			b.Fatalf("open: head %d applied %d (checkpoint %d of %d bytes): %v", got.Head, applied, at, size, err)
		}
	}
	b.ReportMetric(float64(size)/1024, "checkpoint-KiB")
	b.ReportMetric(float64(st.Head-at), "tail-events")
}
