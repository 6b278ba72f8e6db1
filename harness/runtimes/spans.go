package runtimes

import (
	"context"
	"time"

	"exo/sandbox"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Sandbox command spans (sandbox.exec) go through the global OpenTelemetry API, a no-op until
// harness/telemetry installs providers. Command lines are redacted before they are set.
const instrumentation = "exo/harness"

// Modes of a sandbox command, in the exo.sandbox.mode attribute.
const (
	// SandboxShell is a command run in the session's persistent shell (the bash tool, exo exec,
	// exo mcp serve's exec).
	SandboxShell = "shell"
	// SandboxTask is a background task of the session's sandbox.
	SandboxTask = "task"
	// SandboxDetached is a detached background task (exo exec --background).
	SandboxDetached = "detached"
)

// RunCommand runs a command in the persistent shell of rt, a session's live sandbox whose Run
// the caller holds. The command is a sandbox.exec span (a child of ctx's span) when telemetry
// is on.
func (rs *Runtimes) RunCommand(ctx context.Context, rt *Runtime, command string, ro sandbox.RunOptions) (sandbox.Result, error) {
	ctx, span := rs.startSandboxSpan(ctx, rt.Session, command, SandboxShell)
	res, err := rt.Shell.Run(ctx, command, ro)
	if err != nil {
		endSandboxSpan(span, nil, "", err)
		return res, err
	}
	endSandboxSpan(span, &res.ExitCode, res.KillReason, nil)
	return res, nil
}

// sandboxSpanAttrs are the attributes of a sandbox command's span.
func (rs *Runtimes) sandboxSpanAttrs(sessionID, command, mode string) []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String("process.command_line", oneLine(rs.sec.Redact(command))), // redacted whole, then cut
		attribute.String("exo.sandbox.mode", mode),
		attribute.String("gen_ai.conversation.id", sessionID),
	}
}

// startSandboxSpan starts the span of a command run now (a child of ctx's span, if any).
func (rs *Runtimes) startSandboxSpan(ctx context.Context, sessionID, command, mode string) (context.Context, trace.Span) {
	return otel.Tracer(instrumentation).Start(ctx, "sandbox.exec", trace.WithAttributes(rs.sandboxSpanAttrs(sessionID, command, mode)...))
}

// endSandboxSpan records a command's exit (nil: it never ran to an exit) and ends the span.
func endSandboxSpan(span trace.Span, exit *int, killed string, err error, at ...trace.SpanEndOption) {
	if exit != nil {
		span.SetAttributes(attribute.Int("process.exit.code", *exit))
	}
	if killed != "" {
		span.SetAttributes(attribute.String("exo.sandbox.killed", killed))
	}
	switch {
	case err != nil:
		span.SetStatus(codes.Error, err.Error())
	case killed != "" || (exit != nil && *exit != 0):
		span.SetStatus(codes.Error, "the command failed")
	}
	span.End(at...)
}

// recordSandboxSpan records the span of a background command once it has ended, with its own
// start and end times (it may have outlived the turn, or the daemon, that started it).
func (rs *Runtimes) recordSandboxSpan(sessionID, command, mode string, started, ended time.Time, exit int, killed string) {
	if ended.IsZero() {
		ended = time.Now()
	}
	_, span := otel.Tracer(instrumentation).Start(context.Background(), "sandbox.exec", trace.WithTimestamp(started),
		trace.WithAttributes(rs.sandboxSpanAttrs(sessionID, command, mode)...))
	endSandboxSpan(span, &exit, killed, nil, trace.WithTimestamp(ended))
}
