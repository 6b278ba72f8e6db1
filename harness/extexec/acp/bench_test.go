package acp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec"
	"exo/harness/extexec/modeltest"
	"exo/harness/provider"
	"exo/sandbox"
)

// BenchmarkTurn measures one two-step turn (an answer with a call of exo's read_file over MCP,
// the result, a final answer) on a warm claude-agent-acp: through exo (model calls through exo's
// endpoint and recorded, the tool run by exo and recorded, every update turned into events), and
// with the adapter driven directly against the same scripted server by a bare ACP client (the
// SDK's, allowing everything) whose MCP server answers the tool at once with the same tool list.
// It reports the median turn time of each and, for exo, its own time per step measured inside
// (the adapter waiting on exo's endpoint, MCP server and answers, plus the turn's edges spread
// over its steps).
func BenchmarkTurn(b *testing.B) {
	var direct, viaExo []time.Duration
	b.Run("direct", func(b *testing.B) { direct = benchDirect(b) })
	b.Run("exo", func(b *testing.B) { viaExo = benchExo(b, false) })
	b.Run("exo-nosync", func(b *testing.B) { benchExo(b, true) })
	if len(direct) > 0 && len(viaExo) > 0 {
		d, x := median(direct), median(viaExo)
		b.Logf("median turn: direct %s, exo %s; (exo − direct) per step: %s", d, x, (x-d)/2)
	}
}

// benchFixture is a harness (commits synced unless noSync) whose default model is an Anthropic
// model on the benchmark's scripted server, and a session.
func benchFixture(b *testing.B, noSync bool) *fixture {
	sc, err := modeltest.LoadScript(filepath.Join("testdata", "bench.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	srv := modeltest.NewAnthropic(sc)
	b.Cleanup(srv.Close)
	// Not b.TempDir: the adapter's claude may still be writing its state as the benchmark ends.
	home, err := os.MkdirTemp("", "exo-acp-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(home) })
	h, err := harness.Open(home, harness.Options{NoSync: noSync, SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	h.SetSecret("anthropic-key", []byte(sealedKey))
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "sonnet", Provider: "anthropic", ModelID: "claude-sonnet-4-5", BaseURL: srv.URL, Secret: "anthropic-key"}); err != nil {
		b.Fatal(err)
	}
	ws := b.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample\n"), 0o644)
	s, err := h.NewSession(harness.NewSessionOptions{Name: "bench", Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	return &fixture{h: h, s: s, ws: ws, srv: srv}
}

func benchExo(b *testing.B, noSync bool) []time.Duration {
	bin := claudeACP(b)
	f := benchFixture(b, noSync)
	x := f.executor(b, Options{Command: []string{bin}, Exec: executor.Options{Headless: true, AutoApprove: true}})
	var turns, perStep, perTurn []time.Duration
	turn := func() time.Duration {
		start := time.Now()
		res, err := x.Prompt(context.Background(), f.s.ID, "bench step", "bench")
		okResult(b, res, err)
		if res.ToolCalls != 1 {
			b.Fatalf("result %+v", res)
		}
		took := time.Since(start)
		o := x.LastOverhead()
		perStep = append(perStep, (o.Steps+o.Before+o.After)/time.Duration(max(o.Calls, 1)))
		perTurn = append(perTurn, o.Before+o.After)
		return took
	}
	turn() // warm: the adapter and its claude started, the title asked, baseline snapshot taken
	perStep, perTurn = nil, nil
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		turns = append(turns, turn())
	}
	b.StopTimer()
	b.ReportMetric(float64(median(turns).Microseconds())/1000, "ms/turn")
	b.ReportMetric(float64(median(perStep).Microseconds())/1000, "exo-ms/step")
	b.ReportMetric(float64(median(perTurn).Microseconds())/1000, "exo-ms/turn-edges")
	b.ReportMetric(0, "ns/op")
	return turns
}

// bareClient is the least an ACP client does: allow every permission, ignore updates.
type bareClient struct{}

func (bareClient) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	for _, o := range p.Options {
		if o.Kind == sdk.PermissionOptionKindAllowOnce {
			return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(o.OptionId)}, nil
		}
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
}
func (bareClient) SessionUpdate(context.Context, sdk.SessionNotification) error { return nil }
func (bareClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, nil
}
func (bareClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, nil
}
func (bareClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, nil
}
func (bareClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, nil
}
func (bareClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, nil
}
func (bareClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, nil
}
func (bareClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, nil
}

// bareMCP serves tools over MCP's streamable HTTP and answers every call with a constant.
func bareMCP(b testing.TB, tools []provider.Tool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(body, &m)
		if len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var res any = map[string]any{}
		switch m.Method {
		case "initialize":
			res = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "exo", "version": "1"}}
		case "tools/list":
			var ts []any
			for _, t := range tools {
				ts = append(ts, map[string]any{"name": t.Name, "description": t.Description, "inputSchema": t.Schema})
			}
			res = map[string]any{"tools": ts}
		case "tools/call":
			res = map[string]any{"content": []any{map[string]any{"type": "text", "text": "     1\t# sample\n"}}}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
	}))
	b.Cleanup(srv.Close)
	return srv
}

func benchDirect(b *testing.B) []time.Duration {
	bin := claudeACP(b)
	f := benchFixture(b, false)
	x := f.executor(b, Options{Command: []string{bin}})
	mcp := bareMCP(b, x.Executor().HostTools(context.Background(), f.s.ID))
	spec, _ := f.h.Model("")
	d, err := extexec.SessionDirs(b.TempDir(), "acp", "direct")
	if err != nil {
		b.Fatal(err)
	}
	env := map[string]string{
		"HOME": d.Home, "TMPDIR": d.Tmp, "XDG_CONFIG_HOME": d.Config, "XDG_CACHE_HOME": d.Home + "/.cache",
		"CLAUDE_CONFIG_DIR": d.Config + "/claude", "CLAUDE_CODE_TMPDIR": d.Tmp,
		"ANTHROPIC_BASE_URL": f.srv.URL, "ANTHROPIC_API_KEY": sealedKey, "ANTHROPIC_MODEL": spec.ModelID,
		"ANTHROPIC_SMALL_FAST_MODEL": spec.ModelID, "ANTHROPIC_DEFAULT_HAIKU_MODEL": spec.ModelID,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
		"DISABLE_ERROR_REPORTING": "1", "CLAUDE_CODE_MAX_RETRIES": "2",
	}
	p, err := extexec.Start(extexec.Spec{Path: bin, Dir: f.ws, Env: env})
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
	if _, err := conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: "default"}); err != nil {
		b.Fatal(err)
	}
	turn := func() time.Duration {
		start := time.Now()
		if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("bench step")}}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	turn() // warm
	var turns []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		turns = append(turns, turn())
	}
	b.StopTimer()
	b.ReportMetric(float64(median(turns).Microseconds())/1000, "ms/turn")
	b.ReportMetric(0, "ns/op")
	return turns
}

// median returns the median of ds.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
