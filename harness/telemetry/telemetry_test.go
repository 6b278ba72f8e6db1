package telemetry_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/telemetry"
	"exo/sandbox"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// receiver is a local OTLP endpoint: it keeps every raw request body and the decoded spans.
type receiver struct {
	mu      sync.Mutex
	raw     bytes.Buffer
	spans   []*tracepb.Span
	metrics []string
	// sums are the values of the sum metrics received, by name.
	sums map[string]float64
}

// add decodes a trace or metrics export request.
func (r *receiver) add(t *testing.T, path string, body []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.raw.Write(body)
	switch {
	case strings.HasSuffix(path, "/v1/traces"):
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			t.Errorf("decode traces: %v", err)
			return
		}
		r.addTraces(&req)
	case strings.HasSuffix(path, "/v1/metrics"):
		var req colmetricpb.ExportMetricsServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			t.Errorf("decode metrics: %v", err)
			return
		}
		for _, rm := range req.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					r.metrics = append(r.metrics, m.Name)
					r.addSum(m)
				}
			}
		}
	}
}

// addSum keeps the latest total of a cumulative sum metric.
func (r *receiver) addSum(m *metricpb.Metric) {
	sum := m.GetSum()
	if sum == nil {
		return
	}
	if r.sums == nil {
		r.sums = map[string]float64{}
	}
	var total float64
	for _, p := range sum.DataPoints {
		total += p.GetAsDouble() + float64(p.GetAsInt())
	}
	r.sums[m.Name] = total
}

func (r *receiver) addTraces(req *coltracepb.ExportTraceServiceRequest) {
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			r.spans = append(r.spans, ss.Spans...)
		}
	}
}

// httpReceiver serves OTLP/HTTP protobuf.
func httpReceiver(t *testing.T) (*receiver, *httptest.Server) {
	r := &receiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(req.Body)
			if err != nil {
				t.Errorf("gzip: %v", err)
				return
			}
			body = zr
		}
		b, _ := io.ReadAll(body)
		r.add(t, req.URL.Path, b)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return r, srv
}

const secretValue = "dk-Secret-Value-9981-zz"

// runTurn plays a scripted turn of a priced model that runs a command naming a sealed secret's
// value, with telemetry set up from the environment; then records a metric whose attribute holds
// the secret's value, as a careless instrumentation point would, and flushes everything.
func runTurn(t *testing.T) {
	h, err := harness.Open(t.TempDir(), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if err := h.SetSecret("deploy-key", []byte(secretValue)); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "s.yaml")
	os.WriteFile(script, []byte(`
name: otel
turns:
  - tool_calls:
      - name: bash
        args: {command: "echo `+secretValue+` | wc -c"}
      - name: read_file
        args: {path: `+secretValue+`.txt}
  - text: Done.
`), 0o644)
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "demo", Provider: "scripted", BaseURL: script, PriceIn: 3, PriceOut: 15}); err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "t", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	tel, err := telemetry.Setup(context.Background(), h.Redact)
	if err != nil || tel == nil {
		t.Fatalf("setup: %v %v", tel, err)
	}
	res, err := executor.New(h, executor.Options{Headless: true}).Prompt(context.Background(), s.ID, "count it", "test")
	if err != nil || res.ToolCalls != 2 || res.Cost <= 0 {
		t.Fatalf("%v %+v", err, res)
	}
	if c, err := otel.Meter("careless").Int64Counter("careless.count"); err == nil {
		c.Add(context.Background(), 1, metric.WithAttributes(attribute.String("key", "the key is "+secretValue)))
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// attrs maps a span's attributes to their values as text.
func attrs(s *tracepb.Span) map[string]string {
	out := map[string]string{}
	for _, kv := range s.Attributes {
		v := kv.Value
		switch {
		case v.GetStringValue() != "":
			out[kv.Key] = v.GetStringValue()
		case v.GetArrayValue() != nil:
			out[kv.Key] = v.GetArrayValue().String()
		default:
			out[kv.Key] = strings.TrimSpace(strings.TrimPrefix(v.String(), "int_value:"))
		}
	}
	return out
}

// checkSpans checks the GenAI spans, their nesting and that no secret left.
func checkSpans(t *testing.T, r *receiver) {
	r.mu.Lock()
	defer r.mu.Unlock()
	byName := map[string]*tracepb.Span{}
	for _, s := range r.spans {
		byName[s.Name] = s
	}
	turn, chat, tool, exec := byName["invoke_agent default"], byName["chat demo"], byName["execute_tool bash"], byName["sandbox.exec"]
	if turn == nil || chat == nil || tool == nil || exec == nil || byName["execute_tool read_file"] == nil {
		var names []string
		for n := range byName {
			names = append(names, n)
		}
		t.Fatalf("spans received: %v", names)
	}
	if string(chat.ParentSpanId) != string(turn.SpanId) || string(tool.ParentSpanId) != string(turn.SpanId) || string(exec.ParentSpanId) != string(tool.SpanId) {
		t.Fatal("spans are not nested turn → chat, turn → tool → sandbox.exec")
	}
	ca := attrs(chat)
	if ca["gen_ai.operation.name"] != "chat" || ca["gen_ai.request.model"] != "demo" || ca["gen_ai.provider.name"] != "scripted" || ca["gen_ai.usage.input_tokens"] == "" || ca["gen_ai.usage.output_tokens"] == "" {
		t.Fatalf("chat attributes %v", ca)
	}
	if ta := attrs(tool); ta["gen_ai.tool.name"] != "bash" || ta["gen_ai.operation.name"] != "execute_tool" {
		t.Fatalf("tool attributes %v", ta)
	}
	if ea := attrs(exec); !strings.Contains(ea["process.command_line"], "‹secret:deploy-key›") || ea["process.exit.code"] != "0" {
		t.Fatalf("exec attributes %v", ea)
	}
	if rf := byName["execute_tool read_file"]; rf.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Fatalf("a failed tool's span status %v", rf.Status)
	}
	if bytes.Contains(r.raw.Bytes(), []byte(secretValue)) {
		t.Fatal("the secret value is in the exported bytes")
	}
}

// OTLP over HTTP (protobuf): spans for the turn, the model call, the tool calls and the sandbox
// command, token metrics, and no secret in any byte sent.
func TestSpansAndMetricsOverHTTP(t *testing.T) {
	r, srv := httpReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_SERVICE_NAME", "exo-test")
	runTurn(t)
	checkSpans(t, r)
	r.mu.Lock()
	defer r.mu.Unlock()
	got := strings.Join(r.metrics, " ")
	for _, want := range []string{"gen_ai.client.token.usage", "gen_ai.client.operation.duration", "exo.cost", "careless.count"} {
		if !strings.Contains(got, want) {
			t.Errorf("metrics %q lack %s", got, want)
		}
	}
	if r.sums["exo.cost"] <= 0 {
		t.Errorf("exo.cost = %v, want the priced model's spend", r.sums["exo.cost"])
	}
	if !bytes.Contains(r.raw.Bytes(), []byte("the key is ‹secret:deploy-key›")) {
		t.Error("the metric attribute holding the secret did not arrive redacted")
	}
	if !bytes.Contains(r.raw.Bytes(), []byte("exo-test")) {
		t.Error("OTEL_SERVICE_NAME is not the resource's service.name")
	}
}

// grpcTraces is an OTLP/gRPC trace service.
type grpcTraces struct {
	coltracepb.UnimplementedTraceServiceServer
	r *receiver
}

func (g grpcTraces) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	b, _ := proto.Marshal(req)
	g.r.mu.Lock()
	g.r.raw.Write(b)
	g.r.addTraces(req)
	g.r.mu.Unlock()
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// OTLP over gRPC (traces only: metrics turned off by OTEL_METRICS_EXPORTER=none).
func TestSpansOverGRPC(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &receiver{}
	gs := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(gs, grpcTraces{r: r})
	go gs.Serve(l)
	t.Cleanup(gs.Stop)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+l.Addr().String())
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	runTurn(t)
	checkSpans(t, r)
}

// Telemetry stays off without configuration, with OTEL_SDK_DISABLED, and refuses an unknown
// protocol with a clear error.
func TestOffUnlessConfigured(t *testing.T) {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_SDK_DISABLED"} {
		t.Setenv(k, "")
	}
	if telemetry.Enabled() {
		t.Fatal("enabled without configuration")
	}
	if tel, err := telemetry.Setup(context.Background(), nil); tel != nil || err != nil {
		t.Fatalf("setup without configuration: %v %v", tel, err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
	if !telemetry.Enabled() {
		t.Fatal("an endpoint does not enable it")
	}
	t.Setenv("OTEL_SDK_DISABLED", "true")
	if telemetry.Enabled() {
		t.Fatal("OTEL_SDK_DISABLED=true is ignored")
	}
	t.Setenv("OTEL_SDK_DISABLED", "")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := telemetry.Setup(ctx, nil); err == nil || !strings.Contains(err.Error(), "grpc or http/protobuf") {
		t.Fatalf("http/json: %v", err)
	}
}
