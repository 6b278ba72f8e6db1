// Package telemetry exports exo's traces and metrics with OpenTelemetry (the official Go SDK,
// OTLP over HTTP or gRPC). It is off unless the standard variables configure it:
// OTEL_EXPORTER_OTLP_ENDPOINT (or the _TRACES_/_METRICS_ ones), or OTEL_TRACES_EXPORTER /
// OTEL_METRICS_EXPORTER set to otlp; OTEL_SDK_DISABLED=true turns it off; OTEL_EXPORTER_OTLP_PROTOCOL
// (grpc or http/protobuf, the default) picks the transport; OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES name the resource; headers, timeouts, TLS, batching and the metric
// interval follow their OTEL_* variables as the SDK reads them.
//
// The executor records spans and metrics through the global OpenTelemetry API (a no-op until
// Setup installs providers). Every string that leaves — attribute, event, status, span name —
// passes the harness's secret redactor first, in spans and metrics alike.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Protocols of OTEL_EXPORTER_OTLP_PROTOCOL.
const (
	ProtocolGRPC = "grpc"
	ProtocolHTTP = "http/protobuf"
)

// Enabled reports whether the environment asks for export (and does not disable the SDK).
func Enabled() bool {
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	return tracesOn() || metricsOn()
}

// tracesOn and metricsOn say which signals are configured.
func tracesOn() bool  { return signalOn("TRACES") }
func metricsOn() bool { return signalOn("METRICS") }

// signalOn: an exporter variable of none turns a signal off; an endpoint or otlp turns it on.
func signalOn(sig string) bool {
	exp := strings.ToLower(strings.TrimSpace(os.Getenv("OTEL_" + sig + "_EXPORTER")))
	if exp == "none" {
		return false
	}
	return exp == "otlp" || os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_"+sig+"_ENDPOINT") != ""
}

// protocol is the signal's OTLP protocol: its own variable, else the common one, else HTTP.
func protocol(sig string) (string, error) {
	p := strings.ToLower(strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_" + sig + "_PROTOCOL")))
	if p == "" {
		p = strings.ToLower(strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")))
	}
	switch p {
	case "", ProtocolHTTP:
		return ProtocolHTTP, nil
	case ProtocolGRPC:
		return ProtocolGRPC, nil
	}
	return "", fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%s: exo exports with grpc or http/protobuf", p)
}

// Telemetry is the installed providers; Shutdown flushes and stops them.
type Telemetry struct {
	tp *sdktrace.TracerProvider
	mp *sdkmetric.MeterProvider
}

// Setup installs global tracer and meter providers exporting over OTLP as the environment
// says, with every string redacted by redact. It returns nil, nil when telemetry is not
// configured (nothing is loaded or started then).
func Setup(ctx context.Context, redact func(string) string) (*Telemetry, error) {
	if !Enabled() {
		return nil, nil
	}
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "exo")), resource.WithFromEnv(),
		resource.WithTelemetrySDK(), resource.WithHost())
	if err != nil && res == nil {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}
	t := &Telemetry{}
	if tracesOn() {
		exp, err := traceExporter(ctx)
		if err != nil {
			return nil, err
		}
		t.tp = sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithBatcher(redactingExporter{exp, redact}))
		otel.SetTracerProvider(t.tp)
	}
	if metricsOn() {
		exp, err := metricExporter(ctx)
		if err != nil {
			t.Shutdown(ctx)
			return nil, err
		}
		t.mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(sdkmetric.NewPeriodicReader(redactingMetricExporter{exp, redact})))
		otel.SetMeterProvider(t.mp)
	}
	return t, nil
}

// traceExporter builds the OTLP span exporter for the configured protocol.
func traceExporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	p, err := protocol("TRACES")
	if err != nil {
		return nil, err
	}
	var exp sdktrace.SpanExporter
	if p == ProtocolGRPC {
		exp, err = otlptracegrpc.New(ctx)
	} else {
		exp, err = otlptracehttp.New(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("OTLP trace exporter (%s): %w", p, err)
	}
	return exp, nil
}

// metricExporter builds the OTLP metric exporter for the configured protocol.
func metricExporter(ctx context.Context) (sdkmetric.Exporter, error) {
	p, err := protocol("METRICS")
	if err != nil {
		return nil, err
	}
	var exp sdkmetric.Exporter
	if p == ProtocolGRPC {
		exp, err = otlpmetricgrpc.New(ctx)
	} else {
		exp, err = otlpmetrichttp.New(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("OTLP metric exporter (%s): %w", p, err)
	}
	return exp, nil
}

// Shutdown flushes what is buffered (bounded by ctx, else 5 s) and stops the providers.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
	}
	var errs []error
	if t.tp != nil {
		errs = append(errs, t.tp.Shutdown(ctx))
	}
	if t.mp != nil {
		errs = append(errs, t.mp.Shutdown(ctx))
	}
	return errors.Join(errs...)
}
