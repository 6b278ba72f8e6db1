package telemetry

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Whatever an instrumentation point puts in a span, the exporter sees it redacted.
func TestExporterRedactsEveryString(t *testing.T) {
	const secret = "tok-ABC-123"
	red := func(s string) string { return strings.ReplaceAll(s, secret, "‹secret:x›") }
	mem := tracetest.NewInMemoryExporter()
	stub := tracetest.SpanStub{Name: "op " + secret,
		Attributes: []attribute.KeyValue{attribute.String("a", "x"+secret), attribute.StringSlice("b", []string{secret}), attribute.Int("n", 3)},
		Events:     []sdktrace.Event{{Name: "ev " + secret, Attributes: []attribute.KeyValue{attribute.String("c", secret)}}},
		Status:     sdktrace.Status{Code: codes.Error, Description: "failed: " + secret}}
	if err := (redactingExporter{mem, red}).ExportSpans(context.Background(), tracetest.SpanStubs{stub}.Snapshots()); err != nil {
		t.Fatal(err)
	}
	got := mem.GetSpans()
	if len(got) != 1 {
		t.Fatal(got)
	}
	dump := got[0].Name + got[0].Status.Description
	for _, a := range got[0].Attributes {
		dump += a.Value.String()
	}
	for _, e := range got[0].Events {
		dump += e.Name
		for _, a := range e.Attributes {
			dump += a.Value.String()
		}
	}
	if strings.Contains(dump, secret) || strings.Count(dump, "‹secret:x›") != 6 {
		t.Fatalf("exported: %s", dump)
	}
}
