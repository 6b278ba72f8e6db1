package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec"
	"exo/sandbox"
)

// BenchmarkGeminiTurn measures one two-step turn of the Gemini CLI (an answer calling exo's
// read_file over MCP, the result, a final answer) on a warm CLI, side by side: through exo
// (model calls through exo's Gemini endpoint and recorded, the tool run by exo and recorded,
// the permission request put to exo's policy, every update turned into events), and the same
// CLI driven directly against the same fake Gemini server by a bare ACP client (the SDK's,
// allowing everything) whose MCP server answers the tool at once with the same tool list. The
// two run interleaved, turn by turn, the order swapped every turn, so that the machine's load
// weighs on both alike. It reports the median turn of each, their difference per step, and
// exo's own time per step measured inside.
func BenchmarkGeminiTurn(b *testing.B) {
	direct := benchGeminiDirect(b)
	viaExo, inside := benchGeminiExo(b)
	direct() // warm: each CLI started, its MCP tools listed, exo's baseline snapshot taken
	viaExo()
	var d, x []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			d, x = append(d, direct()), append(x, viaExo())
		} else {
			x, d = append(x, viaExo()), append(d, direct())
		}
	}
	b.StopTimer()
	md, mx := median(d), median(x)
	b.ReportMetric(float64(md.Microseconds())/1000, "direct-ms/turn")
	b.ReportMetric(float64(mx.Microseconds())/1000, "exo-ms/turn")
	b.ReportMetric(float64((mx-md).Microseconds())/2000, "diff-ms/step")
	b.ReportMetric(float64(median(*inside).Microseconds())/1000, "exo-inside-ms/step")
	b.ReportMetric(0, "ns/op")
}

// benchGemini is a fake Gemini API for the benchmark: a call of exo's read_file, then, once
// its result comes back, a short answer; the CLI's side questions get a plain JSON answer.
func benchGemini(b *testing.B) *httptest.Server {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
			w.Header().Set("Content-Type", "text/event-stream")
			if lastHoldsResult(body) {
				fmt.Fprint(w, geminiText("README.md says: sample"))
				return
			}
			fmt.Fprint(w, geminiStep(fmt.Sprintf("YmVuY2g%d", n.Add(1)), "mcp_exo_read_file", `{"path": "README.md"}`))
		case strings.HasSuffix(r.URL.Path, ":countTokens"):
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"totalTokens": 42}`)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"candidates": [{"content": {"parts": [{"text": "{\"next_speaker\": \"user\", \"reasoning\": \"done\"}"}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 10,"candidatesTokenCount": 5,"totalTokenCount": 15},"modelVersion": "gemini-2.5-flash"}`)
		}
	}))
	b.Cleanup(srv.Close)
	return srv
}

// lastHoldsResult reports whether a Gemini request's last content carries a function response.
func lastHoldsResult(body []byte) bool {
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse json.RawMessage `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Contents) == 0 {
		return false
	}
	for _, p := range req.Contents[len(req.Contents)-1].Parts {
		if len(p.FunctionResponse) > 0 {
			return true
		}
	}
	return false
}

// benchGeminiFixture is a harness whose Gemini model (its key sealed) is the benchmark's fake
// server, and a session.
func benchGeminiFixture(b *testing.B, srv *httptest.Server) *fixture {
	home, err := os.MkdirTemp("", "exo-gemini-bench-") // not b.TempDir: the CLI may still write as the benchmark ends
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(home) })
	h, err := harness.Open(home, harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	h.SetSecret("gemini-key", []byte(geminiSealedKey))
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "gem", Provider: "gemini", ModelID: "gemini-2.5-flash", BaseURL: srv.URL, Secret: "gemini-key"}); err != nil {
		b.Fatal(err)
	}
	ws := b.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample\n"), 0o644)
	s, err := h.NewSession(harness.NewSessionOptions{Name: "bench", Workspace: ws, Model: "gem"})
	if err != nil {
		b.Fatal(err)
	}
	return &fixture{h: h, s: s, ws: ws}
}

// benchGeminiExo starts the exo side: each call of the function returned runs one turn
// through exo; inside collects exo's own time per step of each turn.
func benchGeminiExo(b *testing.B) (turn func() time.Duration, inside *[]time.Duration) {
	bin := geminiCLI(b)
	f := benchGeminiFixture(b, benchGemini(b))
	x := f.executor(b, Options{Command: []string{bin}, Exec: executor.Options{Headless: true, AutoApprove: true}})
	var perStep []time.Duration
	return func() time.Duration {
		start := time.Now()
		res, err := x.Prompt(context.Background(), f.s.ID, "bench step", "bench")
		okResult(b, res, err)
		if res.ToolCalls != 1 || res.Steps != 2 {
			b.Fatalf("result %+v", res)
		}
		took := time.Since(start)
		o := x.LastOverhead()
		perStep = append(perStep, (o.Steps+o.Before+o.After)/time.Duration(max(o.Calls, 1)))
		return took
	}, &perStep
}

// benchGeminiDirect starts the same CLI without exo: each call of the function returned runs
// one turn, driven by a bare ACP client.
func benchGeminiDirect(b *testing.B) func() time.Duration {
	bin := geminiCLI(b)
	srv := benchGemini(b)
	f := benchGeminiFixture(b, srv)
	x := f.executor(b, Options{Command: []string{bin}})
	mcp := bareMCP(b, x.Executor().HostTools(context.Background(), f.s.ID))
	d, err := extexec.SessionDirs(b.TempDir(), "acp", "direct")
	if err != nil {
		b.Fatal(err)
	}
	if err := d.WriteFile(filepath.Join("home", ".gemini", "settings.json"), []byte(geminiSettingsJSON)); err != nil {
		b.Fatal(err)
	}
	env := map[string]string{"HOME": d.Home, "TMPDIR": d.Tmp, "XDG_CONFIG_HOME": d.Config, "XDG_CACHE_HOME": d.Home + "/.cache",
		"GOOGLE_GEMINI_BASE_URL": srv.URL, "GEMINI_API_KEY": geminiSealedKey, "GEMINI_MODEL": "gemini-2.5-flash", "NO_BROWSER": "1"}
	p, err := extexec.Start(extexec.Spec{Path: bin, Args: []string{"--acp"}, Dir: f.ws, Env: env})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Stop(time.Second) })
	conn := sdk.NewClientSideConnection(bareClient{}, p.Writer(), p.Reader())
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := context.Background()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		b.Fatal(err)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: f.ws, McpServers: []sdk.McpServer{{Http: &sdk.McpServerHttpInline{Type: "http", Name: "exo", Url: mcp.URL, Headers: []sdk.HttpHeader{}}}}})
	if err != nil {
		b.Fatal(err)
	}
	return func() time.Duration {
		start := time.Now()
		res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("bench step")}})
		if err != nil || res.StopReason != sdk.StopReasonEndTurn {
			b.Fatalf("direct turn: %v %+v", err, res)
		}
		return time.Since(start)
	}
}
