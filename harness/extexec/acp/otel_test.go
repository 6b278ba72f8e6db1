package acp

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// An ACP agent's turn is an invoke_agent span, and the terminal command it runs in exo's
// sandbox a sandbox.exec span (mode task) covering the command's run.
func TestACPTurnAndItsTerminalAreSpans(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev); tp.Shutdown(context.Background()) })
	f := newFixture(t)
	x := f.executor(t, Options{Command: []string{tinyAgent(t)}})
	res, err := x.Prompt(context.Background(), f.s.ID, "do the tiny thing", "test")
	okResult(t, res, err)
	var turn, task bool
	var names []string
	for _, s := range exp.GetSpans() {
		attrs := map[string]string{}
		for _, kv := range s.Attributes {
			attrs[string(kv.Key)] = kv.Value.String()
		}
		if attrs["gen_ai.conversation.id"] != f.s.ID {
			continue
		}
		names = append(names, s.Name)
		turn = turn || (strings.HasPrefix(s.Name, "invoke_agent acp:") && attrs["gen_ai.operation.name"] == "invoke_agent")
		task = task || (s.Name == "sandbox.exec" && attrs["exo.sandbox.mode"] == "task" && strings.Contains(attrs["process.command_line"], "terminal-ok") && attrs["process.exit.code"] == "0")
	}
	if !turn || !task {
		t.Fatalf("spans of the session: %v", names)
	}
}
