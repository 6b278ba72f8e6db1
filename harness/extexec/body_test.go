package extexec

import (
	"bytes"
	"encoding/json"
	"exo/harness"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// postMessages posts a raw body to the endpoint's Messages route.
func postMessages(t *testing.T, ep *Endpoint, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ep.URL()+"/v1/messages", strings.NewReader(body))
	req.Header.Set("X-Api-Key", ep.Token())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// An agent (or anything holding its token) may send any bytes: what is not a JSON object is
// refused with a 400 and reaches neither the provider nor the log, nesting deep enough to
// exhaust a recursive parser's stack included, and the endpoint goes on serving.
func TestEndpointRefusesBodiesThatAreNotJSONObjects(t *testing.T) {
	h, s, ep, srv := endpointFixture(t, `
prompts:
  - turns:
      - text: "Still here."
`)
	deep := strings.Repeat("[", 3_000_000) + strings.Repeat("]", 3_000_000)
	for name, body := range map[string]string{
		"not json":        `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]`,
		"an array":        `[{"role":"user","content":"hi"}]`,
		"a string":        `"hi"`,
		"deep":            deep,
		"deep in a field": `{"model":"claude-sonnet-4-5","messages":` + deep + `}`,
		"control char":    "{\"model\":\"claude-sonnet-4-5\",\"messages\":[{\"role\":\"user\",\"content\":\"a\x01b\"}]}",
		"bad escape":      `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"\q"}]}`,
		"trailing bytes":  `{"model":"claude-sonnet-4-5"} {}`,
	} {
		code, out := postMessages(t, ep, body)
		if code != http.StatusBadRequest || !strings.Contains(out, "request body is not JSON") {
			t.Errorf("%s: %d %.200s", name, code, out)
		}
	}
	if n := len(srv.Messages()); n != 0 {
		t.Fatalf("%d refused requests reached the provider", n)
	}
	if code, out := call(t, ep, ep.Token(), "hi"); code != 200 || !strings.Contains(out, "event: message_stop") {
		t.Fatalf("after the refusals: %d %s", code, out)
	}
	ep.log.Flush()
	evs, _ := h.Events(s.ID, 0, 0)
	if len(evs) != 4 { // session.created, then the one call: step.started model.requested model.completed
		t.Fatalf("%d events", len(evs))
	}
}

// The provider reads the last of a key given twice; exo puts its registered model in once, so an
// agent cannot name another model behind the one exo checks.
func TestEndpointPutsTheRegisteredModelInOnce(t *testing.T) {
	_, _, ep, srv := endpointFixture(t, `
prompts:
  - turns:
      - text: "One model."
`)
	body := `{"model":"claude-opus-4-1","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}],"model":"claude-sonnet-4-5"}`
	if code, out := postMessages(t, ep, body); code != 200 {
		t.Fatalf("%d %s", code, out)
	}
	seen := srv.Messages()[0].Body
	var models []string
	dec := json.NewDecoder(strings.NewReader(string(seen)))
	dec.Token() // {
	for dec.More() {
		k, _ := dec.Token()
		var v json.RawMessage
		dec.Decode(&v)
		if k == "model" {
			models = append(models, string(v))
		}
	}
	if len(models) != 1 || models[0] != `"claude-sonnet-4-5"` {
		t.Fatalf("the provider saw models %v in %s", models, seen)
	}
}

// readBody reads the top level as encoding/json does: the last of a key given twice, escaped keys
// unescaped, values of the wrong type read as missing.
func TestReadBodyReadsAsEncodingJSON(t *testing.T) {
	d, err := readBody([]byte(`{"messages":[1],"m\u006fdel":"a","max_tokens":12.5,"messages":[{"role":"user"},{"role":"assistant"}],"tools":{"x":1},"instructions":7}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.model() != "a" || d.models != 1 || d.count("messages") != 2 || d.int("max_tokens") != 0 || d.count("tools") != 0 || d.string("instructions") != "" {
		t.Fatalf("model %q (%d) messages %d max_tokens %d tools %d instructions %q", d.model(), d.models, d.count("messages"), d.int("max_tokens"),
			d.count("tools"), d.string("instructions"))
	}
	if d, err := readBody([]byte(`{"model":5,"max_tokens":64000}`)); err != nil || d.model() != "" || d.int("max_tokens") != 64000 {
		t.Fatalf("%+v %v", d, err)
	}
	if d, err := readBody([]byte(" null ")); err != nil || len(d.fields) != 0 {
		t.Fatalf("null: %+v %v", d, err)
	}
}

// Brackets in strings, escaped quotes included, do not count as nesting.
func TestNestingSkipsStrings(t *testing.T) {
	in := `{"a":"[[[[\"[[[[\\","b":[["x"]]}`
	if !nestingWithin([]byte(in), 3) || nestingWithin([]byte(in), 2) {
		t.Fatal("strings counted, or nesting missed")
	}
	if !nestingWithin([]byte(`{"a":"\\\\"}`), 1) || nestingWithin([]byte(`{"a":"\\\\",[[]]}`), 2) {
		t.Fatal("escaped backslashes before a quote misread")
	}
}

// BenchmarkReadMessagesCall reads a Messages request the size claude-agent-acp sends (85 KiB:
// Claude Code's system prompt and twelve tools, a long first message, a tool call and its result)
// as the endpoint does before forwarding it: the body, its top level, the message count and the
// final message's shape.
func BenchmarkReadMessagesCall(b *testing.B) {
	body := benchBody()
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		r, _ := http.NewRequest(http.MethodPost, "/v1/messages", bytes.NewReader(body))
		_, doc, _, ok := readCall(nil, nil, nil, r)
		if sh := anthropicShape(doc); !ok || doc.count("messages") != 3 || len(sh.results) != 1 || sh.tools != 12 {
			b.Fatalf("%v %+v", ok, sh)
		}
	}
}

// BenchmarkReadMessagesCallRedacted is BenchmarkReadMessagesCall with two sealed secrets, so the
// body is redacted before it is read (what the endpoint does whenever a secret is sealed, the
// model's key included): "step" as an agent's calls come, each the one before with a new last
// message (the redaction of the part they share is reused), "cold" a body never seen before.
func BenchmarkReadMessagesCallRedacted(b *testing.B) {
	h, err := harness.Open(b.TempDir(), harness.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	h.SetSecret("key", []byte("sk-ant-bench-0123456789abcdef"))
	h.SetSecret("other", []byte("other-bench-secret-value"))
	base := benchBody()
	cut := bytes.LastIndex(base, []byte("]}"))
	for _, cold := range []bool{false, true} {
		name := map[bool]string{false: "step", true: "cold"}[cold]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(base)))
			var bodies bodyRedactor
			for i := 0; i < b.N; i++ {
				if cold {
					bodies = bodyRedactor{}
				}
				body := append(append(append([]byte(nil), base[:cut]...), fmt.Sprintf(`,{"role":"user","content":"step %d"}`, i)...), base[cut:]...)
				r, _ := http.NewRequest(http.MethodPost, "/v1/messages", bytes.NewReader(body))
				_, doc, _, ok := readCall(h, &bodies, nil, r)
				if !ok || doc.count("messages") != 4 {
					b.Fatalf("%v %d", ok, doc.count("messages"))
				}
			}
		})
	}
}

// benchBody is a Messages request the size claude-agent-acp sends (85 KiB).
func benchBody() []byte {
	para := strings.Repeat("Prefer the dedicated tools over the shell; keep answers short and exact. ", 40)
	var tools []string
	for i := 0; i < 12; i++ {
		tools = append(tools, `{"name":"Tool`+string(rune('A'+i))+`","description":`+quote(para)+`,"input_schema":{"type":"object","properties":{"command":{"type":"string","description":`+quote(para[:800])+`}}}}`)
	}
	return []byte(`{"model":"claude-sonnet-4-5","max_tokens":32000,"stream":true,"system":[{"type":"text","text":` + quote(strings.Repeat(para, 10)) + `}],` +
		`"tools":[` + strings.Join(tools, ",") + `],"messages":[{"role":"user","content":[{"type":"text","text":` + quote(strings.Repeat(para, 4)) + `},{"type":"text","text":"bench step"}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"Reading."},{"type":"tool_use","id":"toolu_1","name":"mcp__exo__read_file","input":{"path":"README.md"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"     1\t# sample\n"}]}]}`)
}
