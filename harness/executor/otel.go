package executor

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"exo/harness"
	"exo/harness/provider"
)

// Spans and metrics follow the OpenTelemetry GenAI semantic conventions; they go through the
// global OpenTelemetry API, a no-op until harness/telemetry installs providers.
const instrumentation = "exo/harness/executor"

// tracer returns the executor's tracer from the global provider.
func tracer() trace.Tracer { return otel.Tracer(instrumentation) }

// providerName maps exo's provider kinds to gen_ai.provider.name values.
func providerName(kind string) string {
	switch kind {
	case "openai", "openai-chat", "openai-responses":
		return "openai"
	case "anthropic":
		return "anthropic"
	case "ollama":
		return "ollama"
	}
	return kind
}

// startTurnSpan starts the span of a turn (gen_ai invoke_agent).
func (x *Executor) startTurnSpan(ctx context.Context, sessionID string) (context.Context, trace.Span) {
	return tracer().Start(ctx, "invoke_agent "+x.opts.Name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.name", "exo:"+x.opts.Name),
		attribute.String("gen_ai.conversation.id", sessionID)))
}

// TurnSpan starts the span of a turn that another executor runs in this one's name (an external
// agent's turn, whose tools exo runs); the returned function records its outcome and ends it.
// The context carries the span, so the tool spans of calls made with it nest under it.
func (x *Executor) TurnSpan(ctx context.Context, sessionID string) (context.Context, func(Result, error)) {
	ctx, span := x.startTurnSpan(ctx, sessionID)
	return ctx, func(res Result, err error) { endTurnSpan(span, res, err) }
}

// endTurnSpan records a turn's outcome.
func endTurnSpan(span trace.Span, res Result, err error) {
	span.SetAttributes(attribute.Int("exo.turn.steps", res.Steps), attribute.Int("exo.turn.tool_calls", res.ToolCalls),
		attribute.Int64("gen_ai.usage.input_tokens", res.Usage.Input), attribute.Int64("gen_ai.usage.output_tokens", res.Usage.Output),
		attribute.Float64("exo.cost_usd", res.Cost), attribute.Bool("exo.turn.cancelled", res.Cancelled))
	switch {
	case err != nil:
		span.SetStatus(codes.Error, err.Error())
	case res.Failure != "":
		span.SetStatus(codes.Error, res.Failure)
	}
	span.End()
}

// startModelSpan starts the span of a model call (gen_ai chat).
func (t *turn) startModelSpan(ctx context.Context, req provider.Request) (context.Context, trace.Span) {
	return tracer().Start(ctx, "chat "+t.model.ModelID, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", providerName(t.model.Provider)),
		attribute.String("gen_ai.request.model", t.model.ModelID),
		attribute.Int("gen_ai.request.max_tokens", req.MaxOutputTokens),
		attribute.String("gen_ai.conversation.id", t.s.ID)))
}

// endModelSpan records a model call's usage, cost and finish, as span attributes and metrics.
func (t *turn) endModelSpan(ctx context.Context, span trace.Span, resp provider.Response, took time.Duration, err error) {
	cost := harness.ModelCost(t.model, resp.Usage)
	span.SetAttributes(
		attribute.String("gen_ai.response.model", t.model.ModelID),
		attribute.Int64("gen_ai.usage.input_tokens", resp.Usage.Input),
		attribute.Int64("gen_ai.usage.output_tokens", resp.Usage.Output),
		attribute.Int64("gen_ai.usage.cache_read.input_tokens", resp.Usage.Cached),
		attribute.Float64("exo.cost_usd", cost),
		attribute.Int64("exo.ttft_ms", resp.TTFT.Milliseconds()))
	if resp.StopReason != "" {
		span.SetAttributes(attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(resp.StopReason)}))
	}
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
		span.SetAttributes(attribute.String("error.type", errorType(err)))
	}
	span.End()
	recordModelMetrics(ctx, t.model.Provider, t.model.ModelID, resp.Usage, cost, took, err)
}

// errorType is a short class for error.type.
func errorType(err error) string {
	var pe *provider.Error
	if errors.As(err, &pe) && pe.Kind != nil {
		return strings.ReplaceAll(pe.Kind.Error(), " ", "_")
	}
	return "_OTHER"
}

// recordModelMetrics adds a call to gen_ai.client.token.usage, gen_ai.client.operation.duration
// and exo.cost.
func recordModelMetrics(ctx context.Context, kind, model string, u provider.Usage, cost float64, took time.Duration, err error) {
	m := otel.Meter(instrumentation)
	base := []attribute.KeyValue{attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.provider.name", providerName(kind)),
		attribute.String("gen_ai.request.model", model)}
	if tokens, e := m.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"), metric.WithDescription("tokens used by model calls")); e == nil {
		tokens.Record(ctx, u.Input, metric.WithAttributes(append(base, attribute.String("gen_ai.token.type", "input"))...))
		tokens.Record(ctx, u.Output, metric.WithAttributes(append(base, attribute.String("gen_ai.token.type", "output"))...))
	}
	if dur, e := m.Float64Histogram("gen_ai.client.operation.duration", metric.WithUnit("s"), metric.WithDescription("duration of model calls")); e == nil {
		attrs := base
		if err != nil {
			attrs = append(attrs, attribute.String("error.type", errorType(err)))
		}
		dur.Record(ctx, took.Seconds(), metric.WithAttributes(attrs...))
	}
	if c, e := m.Float64Counter("exo.cost", metric.WithUnit("USD"), metric.WithDescription("model spend")); e == nil && cost > 0 {
		c.Add(ctx, cost, metric.WithAttributes(base...))
	}
}

// startToolSpan starts the span of a tool call (gen_ai execute_tool).
func (t *turn) startToolSpan(ctx context.Context, c provider.ToolCall) (context.Context, trace.Span) {
	kind := "function"
	if _, builtin := t.x.tools[c.Name]; !builtin {
		kind = "extension"
	}
	return tracer().Start(ctx, "execute_tool "+c.Name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", c.Name),
		attribute.String("gen_ai.tool.call.id", c.ID),
		attribute.String("gen_ai.tool.type", kind),
		attribute.String("gen_ai.conversation.id", t.s.ID)))
}

// endToolSpan records a tool call's outcome.
func endToolSpan(span trace.Span, done harness.ToolCompleted) {
	span.SetAttributes(attribute.Bool("exo.tool.is_error", done.IsError), attribute.Int64("exo.tool.duration_ms", done.DurationMs))
	if done.Artifact != "" {
		span.SetAttributes(attribute.String("exo.artifact", done.Artifact))
	}
	if done.IsError {
		span.SetStatus(codes.Error, firstLine(done.Output))
		span.SetAttributes(attribute.String("error.type", "tool_error"))
	}
	span.End()
}
