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
	"strconv"
	"strings"
	"sync"
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
// the permission request put to exo's policy, every update turned into events), the same with
// the agent's sandbox at the CPU weight of 50 agents ran at before (exo-w50), and the same CLI
// driven directly against the same fake Gemini server by a bare ACP client (the SDK's,
// allowing everything) whose MCP server answers the tool at once with the same tool list. The
// three run interleaved, turn by turn, each first in turn, so that the machine's load weighs on
// all alike. It reports the median turn of each, the difference per step between exo and
// direct, exo's own time per step measured inside, and where a turn's time goes on each side:
// the model requests the CLI made in a turn (side calls included), the time from the first
// answer's last byte leaving the fake server to the second request arriving there (the CLI's
// work on the answer, the permission round trip and the tool call, and on exo's side the
// endpoint both ways), and the CPU time of the CLI's processes against the time they spent
// runnable waiting for a CPU (from /proc's schedstat; absent where the kernel keeps none), with
// the load average at the end.
func BenchmarkGeminiTurn(b *testing.B) {
	direct := benchGeminiDirect(b)
	viaExo, inside := benchGeminiExo(b, 0)
	before, _ := benchGeminiExo(b, 50)
	sides := []func() geminiTurn{direct, viaExo, before}
	for _, turn := range sides {
		turn() // warm: each CLI started, its MCP tools listed, exo's baseline snapshot taken
	}
	turns := make([][]geminiTurn, len(sides))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range sides {
			j := (i + k) % len(sides) // each side first in turn
			turns[j] = append(turns[j], sides[j]())
		}
	}
	b.StopTimer()
	d, x := turns[0], turns[1]
	md, mx := medianOf(d, geminiTurn.took), medianOf(x, geminiTurn.took)
	ms := func(v time.Duration) float64 { return float64(v.Microseconds()) / 1000 }
	b.ReportMetric(ms(md), "direct-ms/turn")
	b.ReportMetric(ms(mx), "exo-ms/turn")
	b.ReportMetric(ms(medianOf(turns[2], geminiTurn.took)), "exo-w50-ms/turn")
	b.ReportMetric(ms(mx-md)/2, "diff-ms/step")
	b.ReportMetric(ms(median(*inside)), "exo-inside-ms/step")
	for k, name := range []string{"direct", "exo", "exo-w50"} {
		side := turns[k]
		b.ReportMetric(float64(medianOf(side, func(t geminiTurn) time.Duration { return time.Duration(t.requests) })), name+"-requests/turn")
		b.ReportMetric(ms(medianOf(side, geminiTurn.between)), name+"-answer-to-request-ms")
		if side[0].sched {
			b.ReportMetric(ms(medianOf(side, geminiTurn.cpu)), name+"-cli-cpu-ms/turn")
			b.ReportMetric(ms(medianOf(side, geminiTurn.wait)), name+"-cli-wait-ms/turn")
		}
	}
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(la)); len(f) > 0 {
			if v, err := strconv.ParseFloat(f[0], 64); err == nil {
				b.ReportMetric(v, "load1")
			}
		}
	}
	b.ReportMetric(0, "ns/op")
}

// geminiTurn is one turn of the benchmark as measured from outside.
type geminiTurn struct {
	tookT time.Duration
	// requests are the model requests of the turn at the fake server; answered is when the
	// first answer's last byte left it, next when the second request arrived.
	requests       int
	answered, next time.Time
	// sched is set when the CLI's CPU time and wait for a CPU in the turn were read.
	sched       bool
	cpuT, waitT time.Duration
}

func (t geminiTurn) took() time.Duration    { return t.tookT }
func (t geminiTurn) between() time.Duration { return t.next.Sub(t.answered) }
func (t geminiTurn) cpu() time.Duration     { return t.cpuT }
func (t geminiTurn) wait() time.Duration    { return t.waitT }

// medianOf is the median of f over turns.
func medianOf(turns []geminiTurn, f func(geminiTurn) time.Duration) time.Duration {
	ds := make([]time.Duration, len(turns))
	for i, t := range turns {
		ds[i] = f(t)
	}
	return median(ds)
}

// measureGeminiTurn runs turn, the CLI's process tree under pid, and measures it.
func measureGeminiTurn(srv *benchServer, pid int, turn func()) geminiTurn {
	srv.reset()
	cpu0, wait0, ok0 := treeSchedstat(pid)
	start := time.Now()
	turn()
	m := geminiTurn{tookT: time.Since(start)}
	cpu1, wait1, ok1 := treeSchedstat(pid)
	m.sched, m.cpuT, m.waitT = ok0 && ok1, cpu1-cpu0, wait1-wait0
	m.requests, m.answered, m.next = srv.stamps()
	return m
}

// treeSchedstat sums the CPU time and the time spent runnable waiting for a CPU over the
// threads of pid and its descendants (/proc/PID/task/TID/schedstat); false when unreadable.
func treeSchedstat(pid int) (cpu, wait time.Duration, ok bool) {
	for _, p := range descendants(pid) {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", p))
		for _, tf := range tasks {
			b, err := os.ReadFile(tf)
			if err != nil {
				continue // the thread ended meanwhile
			}
			var run, queued int64
			if _, err := fmt.Sscan(string(b), &run, &queued); err != nil {
				continue
			}
			cpu, wait, ok = cpu+time.Duration(run), wait+time.Duration(queued), true
		}
	}
	return cpu, wait, ok
}

// benchServer is a fake Gemini API for the benchmark: a call of exo's read_file, then, once
// its result comes back, a short answer; the CLI's side questions get a plain JSON answer. It
// notes the requests of the turn running.
type benchServer struct {
	*httptest.Server
	n        atomic.Int64
	mu       sync.Mutex
	requests int
	answered time.Time
	next     time.Time
}

// reset starts a turn's notes.
func (s *benchServer) reset() {
	s.mu.Lock()
	s.requests, s.answered, s.next = 0, time.Time{}, time.Time{}
	s.mu.Unlock()
}

// stamps are the turn's notes.
func (s *benchServer) stamps() (int, time.Time, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.answered, s.next
}

func benchGemini(b testing.TB) *benchServer {
	s := &benchServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived := time.Now()
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.requests++
		s.mu.Unlock()
		switch {
		case strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
			w.Header().Set("Content-Type", "text/event-stream")
			if lastHoldsResult(body) {
				s.mu.Lock()
				s.next = arrived
				s.mu.Unlock()
				fmt.Fprint(w, geminiText("README.md says: sample"))
				return
			}
			fmt.Fprint(w, geminiStep(fmt.Sprintf("YmVuY2g%d", s.n.Add(1)), "mcp_exo_read_file", `{"path": "README.md"}`))
			w.(http.Flusher).Flush()
			s.mu.Lock()
			s.answered = time.Now()
			s.mu.Unlock()
		case strings.HasSuffix(r.URL.Path, ":countTokens"):
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"totalTokens": 42}`)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"candidates": [{"content": {"parts": [{"text": "{\"next_speaker\": \"user\", \"reasoning\": \"done\"}"}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 10,"candidatesTokenCount": 5,"totalTokenCount": 15},"modelVersion": "gemini-2.5-flash"}`)
		}
	}))
	b.Cleanup(s.Close)
	return s
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
func benchGeminiFixture(b testing.TB, srv *benchServer) *fixture {
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
// through exo; inside collects exo's own time per step of each turn. A cpuWeight other than 0
// replaces the CPU weight of the agent's sandbox.
func benchGeminiExo(b *testing.B, cpuWeight uint64) (turn func() geminiTurn, inside *[]time.Duration) {
	bin := geminiCLI(b)
	srv := benchGemini(b)
	f := benchGeminiFixture(b, srv)
	x := f.executor(b, Options{Command: []string{bin}, Exec: executor.Options{Headless: true, AutoApprove: true}, cpuWeight: cpuWeight})
	var perStep []time.Duration
	pid := 0
	return func() geminiTurn {
		if ss := x.Session(f.s.ID); pid == 0 && ss != nil && ss.Proc != nil {
			pid = ss.Proc.(*proc).Pid()
		}
		m := measureGeminiTurn(srv, pid, func() {
			res, err := x.Prompt(context.Background(), f.s.ID, "bench step", "bench")
			okResult(b, res, err)
			if res.ToolCalls != 1 || res.Steps != 2 {
				b.Fatalf("result %+v", res)
			}
		})
		o := x.LastOverhead()
		perStep = append(perStep, (o.Steps+o.Before+o.After)/time.Duration(max(o.Calls, 1)))
		return m
	}, &perStep
}

// benchGeminiDirect starts the same CLI without exo: each call of the function returned runs
// one turn, driven by a bare ACP client.
func benchGeminiDirect(b *testing.B) func() geminiTurn {
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
	return func() geminiTurn {
		return measureGeminiTurn(srv, p.Pid(), func() {
			res, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("bench step")}})
			if err != nil || res.StopReason != sdk.StopReasonEndTurn {
				b.Fatalf("direct turn: %v %+v", err, res)
			}
		})
	}
}
