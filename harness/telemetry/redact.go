package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// redactingExporter passes every span through the redactor before the real exporter sees it:
// the last line of defence, whatever an instrumentation point put in an attribute.
type redactingExporter struct {
	next   sdktrace.SpanExporter
	redact func(string) string
}

// ExportSpans redacts and exports.
func (e redactingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if e.redact == nil {
		return e.next.ExportSpans(ctx, spans)
	}
	out := make([]sdktrace.ReadOnlySpan, len(spans))
	for i, s := range spans {
		out[i] = redactedSpan{ReadOnlySpan: s, redact: e.redact}
	}
	return e.next.ExportSpans(ctx, out)
}

// Shutdown stops the real exporter.
func (e redactingExporter) Shutdown(ctx context.Context) error { return e.next.Shutdown(ctx) }

// redactedSpan is a span whose strings are redacted.
type redactedSpan struct {
	sdktrace.ReadOnlySpan
	redact func(string) string
}

// Name is the redacted span name.
func (s redactedSpan) Name() string { return s.redact(s.ReadOnlySpan.Name()) }

// Attributes are the span's attributes, string values redacted.
func (s redactedSpan) Attributes() []attribute.KeyValue {
	return redactAttrs(s.ReadOnlySpan.Attributes(), s.redact)
}

// Events are the span's events with redacted names and attributes.
func (s redactedSpan) Events() []sdktrace.Event {
	evs := s.ReadOnlySpan.Events()
	out := make([]sdktrace.Event, len(evs))
	for i, e := range evs {
		e.Name, e.Attributes = s.redact(e.Name), redactAttrs(e.Attributes, s.redact)
		out[i] = e
	}
	return out
}

// Status is the span's status with a redacted description.
func (s redactedSpan) Status() sdktrace.Status {
	st := s.ReadOnlySpan.Status()
	st.Description = s.redact(st.Description)
	return st
}

// redactAttrs redacts string and string-slice values.
func redactAttrs(in []attribute.KeyValue, redact func(string) string) []attribute.KeyValue {
	out := make([]attribute.KeyValue, len(in))
	for i, kv := range in {
		switch kv.Value.Type() {
		case attribute.STRING:
			kv = attribute.String(string(kv.Key), redact(kv.Value.AsString()))
		case attribute.STRINGSLICE:
			vals := kv.Value.AsStringSlice()
			for j := range vals {
				vals[j] = redact(vals[j])
			}
			kv = attribute.StringSlice(string(kv.Key), vals)
		}
		out[i] = kv
	}
	return out
}
