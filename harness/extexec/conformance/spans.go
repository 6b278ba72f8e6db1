package conformance

import (
	"sync"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"exo/harness"
)

var (
	spanOnce sync.Once
	spanExp  *tracetest.InMemoryExporter
)

// spans installs, once for the test process, a tracer provider recording every span in memory;
// behaviours find theirs by session (gen_ai.conversation.id), so they run in parallel.
func spans() *tracetest.InMemoryExporter {
	spanOnce.Do(func() {
		spanExp = tracetest.NewInMemoryExporter()
		otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSyncer(spanExp)))
	})
	return spanExp
}

// RecordSpans makes sure spans are recorded from now on (the suite's Run does it itself).
func RecordSpans() { spans() }

// SessionSpans are the recorded spans of session sid (RecordSpans first).
func SessionSpans(sid string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans().GetSpans() {
		for _, kv := range s.Attributes {
			if kv.Key == "gen_ai.conversation.id" && kv.Value.AsString() == sid {
				out = append(out, s)
			}
		}
	}
	return out
}

// Spans: a turn is an invoke_agent span, the bash call exo runs for it an execute_tool span under
// it, and the command a sandbox.exec span under that; the turn's span counts its tool calls.
func Spans(t *testing.T, s *Suite) {
	f := s.Fixture(t, "", harness.Options{})
	x := f.Open(t, Options{})
	f.prompt(t, x, f.Sess.ID, promptFile+" (spans)")
	var turn, tool, exec tracetest.SpanStub
	var names []string
	for _, sp := range SessionSpans(f.Sess.ID) {
		names = append(names, sp.Name)
		switch {
		case len(sp.Name) > len("invoke_agent ") && sp.Name[:len("invoke_agent ")] == "invoke_agent ":
			turn = sp
		case sp.Name == "execute_tool bash":
			tool = sp
		case sp.Name == "sandbox.exec":
			exec = sp
		}
	}
	if !turn.SpanContext.IsValid() || !tool.SpanContext.IsValid() || !exec.SpanContext.IsValid() {
		t.Fatalf("spans of the session: %v", names)
	}
	if tool.Parent.SpanID() != turn.SpanContext.SpanID() || exec.Parent.SpanID() != tool.SpanContext.SpanID() {
		t.Fatalf("spans are not nested turn → tool → sandbox.exec: %v", names)
	}
	var calls int64 = -1
	for _, kv := range turn.Attributes {
		if kv.Key == "exo.turn.tool_calls" {
			calls = kv.Value.AsInt64()
		}
	}
	if calls != 1 {
		t.Fatalf("the turn span counts %d tool calls", calls)
	}
}
