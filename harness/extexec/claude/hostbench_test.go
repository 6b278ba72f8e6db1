package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/provider"
)

// BenchmarkHostToolCall measures one call of exo's read_file as an external agent makes it:
// tool.started and tool.completed committed (two fsyncs), the file read, the result rendered.
func BenchmarkHostToolCall(b *testing.B) {
	f := newFixture(b)
	x := executor.New(f.h, executor.Options{Name: Name, Headless: true})
	if err := f.h.EnsureBaseline(f.s.ID, ""); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"path":"README.md"}`)
	for i := 0; i < b.N; i++ {
		id := fmt.Sprintf("c%d", i)
		b.StopTimer()
		if _, err := f.h.Append(f.s.ID, harness.MustRecord(harness.TypeModelCompleted, "executor:"+Name,
			harness.ModelCompleted{ToolCalls: []harness.ToolCall{{ID: id, Name: "read_file", Arguments: args}}})); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		done, err := x.RunHostTool(context.Background(), f.s.ID, provider.ToolCall{ID: id, Name: "read_file", Arguments: args})
		if err != nil || done.IsError {
			b.Fatal(err, done.Output)
		}
	}
}
