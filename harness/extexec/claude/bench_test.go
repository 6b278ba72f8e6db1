package claude

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec"
	"exo/harness/extexec/modeltest"
	"exo/harness/provider"
)

// BenchmarkTurn measures one two-step turn (an answer with a tool call, the tool's result, a
// final answer) on a warm claude process: through exo (model calls through exo's endpoint and
// recorded, the tool run by exo and recorded), and with claude -p driven directly against the
// same scripted server by a bare stream-json host that answers the tool at once. It reports the
// median turn time and time from the prompt to the first streamed character of each, and for exo
// its own time measured inside, per step (model call): the time Claude waited on exo's endpoint
// (before the call went upstream and after the answer ended) and on exo's answers to its control
// requests (the tool call included), plus the turn's edges (before the prompt reached Claude and
// after its result) spread over its steps; and the edges alone per turn.
func BenchmarkTurn(b *testing.B) {
	var direct, viaExo []time.Duration
	var directTTFC, exoTTFC []time.Duration
	b.Run("direct", func(b *testing.B) { direct, directTTFC = benchDirect(b) })
	b.Run("exo", func(b *testing.B) { viaExo, exoTTFC = benchExo(b, false) })
	b.Run("exo-nosync", func(b *testing.B) { benchExo(b, true) })
	if len(direct) > 0 && len(viaExo) > 0 {
		d, x := median(direct), median(viaExo)
		b.Logf("median turn: direct %s, exo %s; first character: direct %s, exo %s; (exo − direct) per step: %s",
			d, x, median(directTTFC), median(exoTTFC), (x-d)/2)
	}
}

// benchScript loads the benchmark's scripted server.
func benchScript(b testing.TB) *modeltest.Anthropic {
	sc, err := modeltest.LoadScript(filepath.Join("testdata", "bench.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	srv := modeltest.NewAnthropic(sc)
	b.Cleanup(srv.Close)
	return srv
}

// benchExo runs the turns through exo; noSync leaves commits unsynced (to show exo's time
// without the disk's).
func benchExo(b *testing.B, noSync bool) (turns, ttfc []time.Duration) {
	f := openFixture(b, b.TempDir(), noSync)
	f.srv.Close()
	srv := benchScript(b)
	if _, err := f.h.RegisterModel(harness.ModelSpec{Name: "bench", Provider: "anthropic", ModelID: "claude-sonnet-4-5", BaseURL: srv.URL, Secret: "anthropic-key"}); err != nil {
		b.Fatal(err)
	}
	if err := f.h.SetDefaultModel("bench"); err != nil {
		b.Fatal(err)
	}
	first := make(chan time.Time, 1)
	x := f.executor(b, Options{Exec: executor.Options{OnDelta: func(string, string) {
		select {
		case first <- time.Now():
		default:
		}
	}}})
	var perStep, perTurn []time.Duration
	turn := func() (time.Duration, time.Duration) {
		for len(first) > 0 {
			<-first
		}
		start := time.Now()
		res, err := x.Prompt(context.Background(), f.s.ID, "bench step", "bench")
		okResult(b, res, err)
		if res.Steps != 2 {
			b.Fatalf("steps %d", res.Steps)
		}
		took := time.Since(start)
		o := x.LastOverhead()
		perStep = append(perStep, (o.Steps+o.Before+o.After)/time.Duration(o.Calls))
		perTurn = append(perTurn, o.Before+o.After)
		return took, (<-first).Sub(start)
	}
	turn() // warm: claude started, baseline snapshot taken
	perStep, perTurn = nil, nil
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, t := turn()
		turns, ttfc = append(turns, d), append(ttfc, t)
	}
	b.StopTimer()
	report(b, turns, ttfc)
	b.ReportMetric(float64(median(perStep).Microseconds())/1000, "exo-ms/step")
	b.ReportMetric(float64(median(perTurn).Microseconds())/1000, "exo-ms/turn-edges")
	return turns, ttfc
}

func benchDirect(b *testing.B) (turns, ttfc []time.Duration) {
	bin := claudeBinary(b)
	srv := benchScript(b)
	// The same claude, arguments, system prompt and tool list as through exo; only the host differs.
	f := newFixture(b)
	x := f.executor(b, Options{})
	spec, _ := f.h.Model("")
	spec.ModelID = "claude-sonnet-4-5"
	d, err := extexec.SessionDirs(b.TempDir(), Name, "direct")
	if err != nil {
		b.Fatal(err)
	}
	env := map[string]string{}
	for k, v := range x.a.env(d, nil, spec) {
		env[k] = v
	}
	env["ANTHROPIC_BASE_URL"], env["ANTHROPIC_API_KEY"] = srv.URL, sealedKey
	cmd := exec.Command(bin, x.a.args(f.s, spec, newUUID(), false)...)
	cmd.Dir = f.ws
	cmd.Env = extexec.CleanEnv(os.Environ(), env)
	h := &bareHost{tools: x.Executor().HostTools(context.Background(), f.s.ID)}
	if h.in, err = cmd.StdinPipe(); err != nil {
		b.Fatal(err)
	}
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.in.Close(); cmd.Process.Kill(); cmd.Wait() })
	h.out = bufio.NewReaderSize(out, 1<<20)
	h.send(map[string]any{"type": "control_request", "request_id": "init", "request": map[string]any{"subtype": "initialize", "hooks": map[string]any{}, "sdkMcpServers": []string{"exo"}}})
	h.turn(b) // warm
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, t := h.turn(b)
		turns, ttfc = append(turns, d), append(ttfc, t)
	}
	b.StopTimer()
	report(b, turns, ttfc)
	return turns, ttfc
}

// bareHost is the least a stream-json host does: send the prompt, allow tools, answer the
// in-band MCP server with a constant, read until the result.
type bareHost struct {
	in    io.WriteCloser
	out   *bufio.Reader
	tools []provider.Tool
}

func (h *bareHost) send(v any) {
	raw, _ := json.Marshal(v)
	h.in.Write(append(raw, '\n'))
}

// turn runs one prompt and returns its duration and the time to the first text delta.
func (h *bareHost) turn(b *testing.B) (time.Duration, time.Duration) {
	start := time.Now()
	var first time.Duration
	h.send(userLine("bench step"))
	for {
		line, err := h.out.ReadBytes('\n')
		if err != nil {
			b.Fatalf("claude: %v", err)
		}
		var env envelope
		if json.Unmarshal(line, &env) != nil {
			continue
		}
		switch env.Type {
		case "stream_event":
			var ev streamEvent
			if json.Unmarshal(env.Event, &ev) == nil && ev.Delta != nil && ev.Delta.Type == "text_delta" && first == 0 {
				first = time.Since(start)
			}
		case "control_request":
			h.control(env)
		case "result":
			return time.Since(start), first
		}
	}
}

// control answers a control request at once.
func (h *bareHost) control(env envelope) {
	var r controlRequest
	json.Unmarshal(env.Request, &r)
	switch r.Subtype {
	case "can_use_tool":
		h.send(controlSuccess(env.RequestID, map[string]any{"behavior": "allow", "updatedInput": r.Input}))
	case "mcp_message":
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(r.Message, &m)
		var res any = map[string]any{}
		switch m.Method {
		case "initialize":
			res = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "exo", "version": "1"}}
		case "tools/list":
			var tools []any
			for _, t := range h.tools {
				tools = append(tools, map[string]any{"name": t.Name, "description": t.Description, "inputSchema": t.Schema})
			}
			res = map[string]any{"tools": tools}
		case "tools/call":
			res = map[string]any{"content": []any{map[string]any{"type": "text", "text": "     1\t# sample\n"}}}
		}
		h.send(controlSuccess(env.RequestID, map[string]any{"mcp_response": map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res}}))
	}
}

// report adds median turn and first-character times to the benchmark's output.
func report(b *testing.B, turns, ttfc []time.Duration) {
	b.ReportMetric(float64(median(turns).Microseconds())/1000, "ms/turn")
	b.ReportMetric(float64(median(ttfc).Microseconds())/1000, "ms-to-first-char")
	b.ReportMetric(0, "ns/op")
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
