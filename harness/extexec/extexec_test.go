package extexec

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/extexec/modeltest"
	"exo/harness/provider"
)

func TestCleanEnvKeepsOnlyTheAllowList(t *testing.T) {
	parent := []string{"PATH=/bin", "LANG=C.UTF-8", "LC_ALL=C", "ANTHROPIC_API_KEY=sk-real", "EXO_HOME=/x", "IS_SANDBOX=yes",
		"AWS_SECRET_ACCESS_KEY=a", "SSH_AUTH_SOCK=/s", "HOME=/root", "GITHUB_TOKEN=t"}
	got := strings.Join(CleanEnv(parent, map[string]string{"HOME": "/state/home", "ANTHROPIC_API_KEY": "tok"}), " ")
	if got != "ANTHROPIC_API_KEY=tok HOME=/state/home LANG=C.UTF-8 LC_ALL=C PATH=/bin" {
		t.Fatalf("env %q", got)
	}
}

func TestMCPServerAnswersTheHandshakeEveryTime(t *testing.T) {
	var calls []string
	s := &MCPServer{Name: "exo", Version: "1",
		Tools: func(context.Context) []provider.Tool {
			return []provider.Tool{{Name: "bash", Description: "run", Schema: json.RawMessage(`{"type":"object"}`)}}
		},
		Call: func(_ context.Context, id, name string, args json.RawMessage) (string, bool) {
			calls = append(calls, id+" "+name+" "+string(args))
			return "ok", false
		}}
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		init := s.Handle(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`))
		if !bytes.Contains(init, []byte(`"protocolVersion":"2025-11-25"`)) || !bytes.Contains(init, []byte(`"id":0`)) {
			t.Fatalf("initialize %d: %s", i, init)
		}
		if s.Handle(ctx, json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)) != nil {
			t.Fatal("a notification was answered")
		}
		list := s.Handle(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if !bytes.Contains(list, []byte(`"name":"bash"`)) || !bytes.Contains(list, []byte(`"inputSchema":{"type":"object"}`)) {
			t.Fatalf("tools/list %d: %s", i, list)
		}
	}
	res := s.Handle(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"ls"},"_meta":{"claudecode/toolUseId":"toolu_1"}}}`))
	if !bytes.Contains(res, []byte(`"text":"ok"`)) || len(calls) != 1 || calls[0] != `toolu_1 bash {"command":"ls"}` {
		t.Fatalf("tools/call: %s %v", res, calls)
	}
	if bad := s.Handle(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":3,"method":"nope"}`)); !bytes.Contains(bad, []byte(`-32601`)) {
		t.Fatalf("unknown method: %s", bad)
	}
	if bad := s.Handle(ctx, json.RawMessage(`{not json`)); !bytes.Contains(bad, []byte(`-32700`)) {
		t.Fatalf("bad json: %s", bad)
	}
}

// endpointFixture is an endpoint for a session whose model is a scripted Anthropic server.
func endpointFixture(t *testing.T, script string) (*harness.Harness, *harness.Session, *Endpoint, *modeltest.Anthropic) {
	t.Helper()
	sc, err := modeltest.ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewAnthropic(sc)
	t.Cleanup(srv.Close)
	h, err := harness.Open(t.TempDir(), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	h.SetSecret("k", []byte("sk-sealed-value-1234567890"))
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "m", Provider: "anthropic", ModelID: "claude-sonnet-4-5", BaseURL: srv.URL, Secret: "k"}); err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "s"})
	if err != nil {
		t.Fatal(err)
	}
	up, err := OpenUpstream(h, "")
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := h.Model("")
	log := NewLog(h, s.ID, "agent", spec)
	log.BeginTurn(s.Branch)
	log.Expect("hi")
	ep, err := NewEndpoint(log, up)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ep.Close() })
	return h, s, ep, srv
}

// call posts a streamed Messages request to the endpoint.
func call(t *testing.T, ep *Endpoint, token, prompt string) (int, string) {
	t.Helper()
	body := `{"model":"other-model","max_tokens":100,"stream":true,"messages":[{"role":"user","content":` + quote(prompt) + `}]}`
	req, _ := http.NewRequest(http.MethodPost, ep.URL()+"/v1/messages", strings.NewReader(body))
	req.Header.Set("X-Api-Key", token)
	req.Header.Set("Anthropic-Version", "2023-06-01")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestEndpointForwardsWithTheSealedKeyAndRecords(t *testing.T) {
	h, s, ep, srv := endpointFixture(t, `
prompts:
  - turns:
      - text: "Hello there."
        tool_calls: [{name: bash, input: {command: ls}}]
`)
	code, out := call(t, ep, ep.Token(), "hi")
	if code != 200 || !strings.Contains(out, "event: message_stop") || !strings.Contains(out, `"partial_json"`) {
		t.Fatalf("%d %s", code, out)
	}
	if err := ep.log.Flush(); err != nil {
		t.Fatal(err)
	}
	seen := srv.Messages()[0]
	if seen.Header.Get("X-Api-Key") != "sk-sealed-value-1234567890" || seen.Header.Get("Anthropic-Version") != "2023-06-01" {
		t.Fatalf("upstream headers %v", seen.Header)
	}
	if !bytes.Contains(seen.Body, []byte(`"model":"claude-sonnet-4-5"`)) {
		t.Fatalf("the registered model was not put in: %s", seen.Body)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	var comp *harness.ModelCompleted
	var typ []string
	for _, e := range evs {
		typ = append(typ, e.Type)
		if e.Type == harness.TypeModelCompleted {
			p, _ := harness.Decode(e)
			comp = p.(*harness.ModelCompleted)
		}
	}
	if strings.Join(typ, " ") != "session.created step.started model.requested model.completed" {
		t.Fatalf("events %v", typ)
	}
	if comp.Text != "Hello there." || len(comp.ToolCalls) != 1 || string(comp.ToolCalls[0].Arguments) != `{"command":"ls"}` ||
		comp.Usage.Input == 0 || comp.Usage.Output == 0 || comp.Cost == 0 || comp.StopReason != "tool_use" || comp.Model != "m" {
		t.Fatalf("model.completed %+v", comp)
	}
	if code, _ := call(t, ep, "sk-sealed-value-1234567890", "hi"); code != 401 {
		t.Fatalf("the real key as a token: %d", code)
	}
	if len(srv.Messages()) != 1 {
		t.Fatal("an unauthorized call reached the provider")
	}
}

func TestEndpointRecordsUpstreamFailures(t *testing.T) {
	h, s, ep, _ := endpointFixture(t, `
prompts:
  - turns:
      - status: 529
`)
	if code, _ := call(t, ep, ep.Token(), "hi"); code != 529 {
		t.Fatalf("status %d", code)
	}
	ep.log.Flush()
	evs, _ := h.Events(s.ID, 0, 0)
	last := evs[len(evs)-1]
	p, _ := harness.Decode(last)
	f, ok := p.(*harness.ModelFailed)
	if !ok || f.Kind != "overloaded" || !f.Retryable || !strings.Contains(f.Error, "529") {
		t.Fatalf("last event %s %+v", last.Type, p)
	}
	if st, _ := h.State(s.ID); st.ModelInFlight != 0 {
		t.Fatal("a failed call left a model in flight")
	}
}

func TestSplitterHandlesAnyChunking(t *testing.T) {
	stream := "event: a\ndata: {\"x\":1}\n\n: comment\r\ndata: line1\ndata: line2\n\n"
	for size := 1; size <= len(stream); size++ {
		got := sseEvents(&chunked{s: stream, n: size})
		if strings.Join(got, "|") != "{\"x\":1}|line1\nline2" {
			t.Fatalf("chunk %d: %q", size, got)
		}
	}
}

// chunked reads s n bytes at a time.
type chunked struct {
	s string
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}

// sseEvents is the data of each event read from r, as the endpoint's tap reads it.
func sseEvents(r io.Reader) []string {
	var got []string
	for sr := provider.NewSSEReader(r); sr.Next(); {
		got = append(got, string(sr.Data()))
	}
	return got
}

func TestSessionDirsRefuseUnsafeNames(t *testing.T) {
	home := t.TempDir()
	if _, err := SessionDirs(home, "claude-code", "../../etc"); err == nil {
		t.Fatal("a path escape was accepted")
	}
	d, err := SessionDirs(home, "claude-code", "abc123")
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(d.Config); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("config dir %v %v", fi, err)
	}
}

func TestEndpointForwardsResponsesWithTheSealedKey(t *testing.T) {
	sc, _ := modeltest.ParseScript([]byte(`
prompts:
  - turns:
      - text: "Looking."
        tool_calls: [{name: exo_bash, input: {command: ls}}]
`))
	srv := modeltest.NewResponses(sc)
	defer srv.Close()
	h, err := harness.Open(t.TempDir(), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	h.SetSecret("k", []byte("sk-openai-sealed-0987654321"))
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "g", Provider: "openai", ModelID: "gpt-5.5", BaseURL: srv.BaseURL(), Secret: "k"}); err != nil {
		t.Fatal(err)
	}
	s, _ := h.NewSession(harness.NewSessionOptions{Name: "s"})
	up, err := OpenUpstream(h, "")
	if err != nil || !up.passes(WireResponses) {
		t.Fatalf("upstream %+v %v", up, err)
	}
	spec, _ := h.Model("")
	log := NewLog(h, s.ID, "agent", spec)
	log.BeginTurn(s.Branch)
	log.Expect("hi")
	ep, err := NewEndpoint(log, up)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	req, _ := http.NewRequest(http.MethodPost, ep.URL()+"/v1/responses", strings.NewReader(`{"model":"gpt-5.5","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}`))
	req.Header.Set("Authorization", "Bearer "+ep.Token())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(out), "response.completed") {
		t.Fatalf("%d %s", res.StatusCode, out)
	}
	log.Flush()
	if got := srv.Calls()[0].Header.Get("Authorization"); got != "Bearer sk-openai-sealed-0987654321" {
		t.Fatalf("provider saw %q", got)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	p, _ := harness.Decode(evs[len(evs)-1])
	c, ok := p.(*harness.ModelCompleted)
	if !ok || c.Text != "Looking." || len(c.ToolCalls) != 1 || c.ToolCalls[0].ID != "call_fake000001_1" || c.ToolCalls[0].Name != "exo_bash" || c.Usage.Input == 0 {
		t.Fatalf("last event %s %+v", evs[len(evs)-1].Type, p)
	}
}

// TestEndpointCutsAStalledStream: an upstream that starts an answer and then sends nothing is cut
// after the idle timeout, as exo's own providers cut one: the agent gets an error event saying
// so, the call is recorded as failed, and nothing stays in flight. (Before, the pass-through
// relay waited for it for good; only the agent's own timeout, 10 minutes for Claude Code, ended
// the call, which was then recorded as nothing at all.)
func TestEndpointCutsAStalledStream(t *testing.T) {
	h, s, ep, srv := endpointFixture(t, `
prompts:
  - turns:
      - hang: true
`)
	defer srv.Release()
	ep.idle = 300 * time.Millisecond
	body := `{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	req, _ := http.NewRequest(http.MethodPost, ep.URL()+"/v1/messages", strings.NewReader(body))
	req.Header.Set("X-Api-Key", ep.Token())
	res, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || !strings.Contains(string(out), "event: error") || !strings.Contains(string(out), "stalled") {
		t.Fatalf("the agent got %q (%v)", out, err)
	}
	if err := ep.log.Flush(); err != nil {
		t.Fatal(err)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	p, _ := harness.Decode(evs[len(evs)-1])
	if f, ok := p.(*harness.ModelFailed); !ok || !strings.Contains(f.Error, "stalled") || f.Kind != "stream_cut" {
		t.Fatalf("last event %s %+v", evs[len(evs)-1].Type, p)
	}
	if st, _ := h.State(s.ID); st.ModelInFlight != 0 {
		t.Fatal("the stalled call stays in flight")
	}
}
