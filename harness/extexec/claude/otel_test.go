package claude

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A Claude Code turn is an invoke_agent span like exo's own turns; the bash call exo runs for
// it is an execute_tool span under it, and the command a sandbox.exec span under that.
func TestClaudeTurnAndItsToolsAreSpans(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev); tp.Shutdown(context.Background()) })
	f := newFixture(t)
	x := f.executor(t, Options{})
	res, err := x.Prompt(context.Background(), f.s.ID, "make a file", "test")
	okResult(t, res, err)
	byName := map[string]tracetest.SpanStub{}
	for _, s := range exp.GetSpans() {
		for _, kv := range s.Attributes {
			if kv.Key == "gen_ai.conversation.id" && kv.Value.AsString() == f.s.ID {
				byName[s.Name] = s
			}
		}
	}
	turn, tool, exec := byName["invoke_agent "+Name], byName["execute_tool bash"], byName["sandbox.exec"]
	if !turn.SpanContext.IsValid() || !tool.SpanContext.IsValid() || !exec.SpanContext.IsValid() {
		t.Fatalf("spans: %v", keys(byName))
	}
	if tool.Parent.SpanID() != turn.SpanContext.SpanID() || exec.Parent.SpanID() != tool.SpanContext.SpanID() {
		t.Fatal("spans are not nested turn → tool → sandbox.exec")
	}
	var steps int64 = -1
	for _, kv := range turn.Attributes {
		if kv.Key == "exo.turn.tool_calls" {
			steps = kv.Value.AsInt64()
		}
	}
	if steps != 1 {
		t.Fatalf("the turn span counts %d tool calls", steps)
	}
}

func keys(m map[string]tracetest.SpanStub) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
