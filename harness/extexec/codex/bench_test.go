package codex

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec"
	"exo/harness/extexec/modeltest"
	"exo/sandbox"
)

// BenchmarkTurn measures one two-step turn (an answer with a call of exo's read_file, the
// result, a final answer) on a warm codex app-server: through exo (model calls through exo's
// endpoint and recorded, the tool run by exo and recorded), and with codex app-server driven
// directly against the same scripted server by a bare JSON-RPC host that answers the tool call
// at once, with the same configuration, thread parameters and tools. It reports the median turn
// time and time to the first answer delta of each, and for exo its own time per step measured
// inside (Codex waiting on exo's endpoint and on exo's answers, plus the turn's edges spread over
// its steps).
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

// benchFixture is a harness (commits synced unless noSync) whose default model is an OpenAI
// model on the benchmark's scripted server, and a session.
func benchFixture(b *testing.B, noSync bool) *fixture {
	bin := codexBinary(b)
	sc, err := modeltest.LoadScript(filepath.Join("testdata", "bench.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	srv := modeltest.NewResponses(sc)
	b.Cleanup(srv.Close)
	h, err := harness.Open(b.TempDir(), harness.Options{NoSync: noSync, SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	h.SetSecret("openai-key", []byte(sealedKey))
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "gpt", Provider: "openai", ModelID: "gpt-5.5", BaseURL: srv.BaseURL(), Secret: "openai-key"}); err != nil {
		b.Fatal(err)
	}
	ws := b.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample\n"), 0o644)
	s, err := h.NewSession(harness.NewSessionOptions{Name: "bench", Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	return &fixture{h: h, s: s, ws: ws, srv: srv, bin: bin}
}

func benchExo(b *testing.B, noSync bool) []time.Duration {
	f := benchFixture(b, noSync)
	x := f.executor(b, Options{Exec: executor.Options{Headless: true}})
	var turns, perStep, perTurn []time.Duration
	turn := func() time.Duration {
		start := time.Now()
		res, err := x.Prompt(context.Background(), f.s.ID, "bench step", "bench")
		okResult(b, res, err)
		if res.Steps != 2 || res.ToolCalls != 1 {
			b.Fatalf("result %+v", res)
		}
		took := time.Since(start)
		o := x.LastOverhead()
		perStep = append(perStep, (o.Steps+o.Before+o.After)/time.Duration(o.Calls))
		perTurn = append(perTurn, o.Before+o.After)
		return took
	}
	turn() // warm: codex started, baseline snapshot taken
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

func benchDirect(b *testing.B) []time.Duration {
	f := benchFixture(b, false)
	x := f.executor(b, Options{})
	spec, _ := f.h.Model("")
	d, err := extexec.SessionDirs(b.TempDir(), Name, "direct")
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Config, "config.toml"), []byte(x.a.config(f.srv.BaseURL(), spec)), 0o600); err != nil {
		b.Fatal(err)
	}
	p, err := extexec.Start(extexec.Spec{Path: f.bin, Args: []string{"app-server"}, Dir: f.ws,
		Env: map[string]string{"HOME": d.Home, "CODEX_HOME": d.Config, "TMPDIR": d.Tmp, tokenEnv: sealedKey, "NO_BROWSER": "1"}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Stop(time.Second) })
	rpc := extexec.NewRPC(p, extexec.RPCOptions{Handler: func(_ context.Context, method string, _ json.RawMessage) (any, *extexec.RPCError) {
		if method == "item/tool/call" {
			return map[string]any{"contentItems": []map[string]any{{"type": "inputText", "text": "     1\t# sample\n"}}, "success": true}, nil
		}
		return map[string]any{"decision": "accept"}, nil
	}})
	ctx := context.Background()
	if _, err := rpc.Call(ctx, "initialize", map[string]any{"clientInfo": map[string]any{"name": "bench", "version": "1"},
		"capabilities": map[string]any{"experimentalApi": true}}, time.Minute); err != nil {
		b.Fatal(err)
	}
	rpc.Notify("initialized", nil)
	pr := &proc{a: x.a}
	raw, err := rpc.Call(ctx, "thread/start", pr.threadParams(f.s), time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	var started struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	json.Unmarshal(raw, &started)
	pr.thread = started.Thread.ID
	turn := func() time.Duration {
		start := time.Now()
		if _, err := rpc.Call(ctx, "turn/start", pr.turnParams("bench step"), time.Minute); err != nil {
			b.Fatal(err)
		}
		for {
			ns, closed := rpc.Take()
			for _, n := range ns {
				if n.Method == "turn/completed" {
					return time.Since(start)
				}
			}
			if closed {
				b.Fatal("codex exited")
			}
			<-rpc.Ready()
		}
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
