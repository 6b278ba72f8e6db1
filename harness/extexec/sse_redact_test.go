package extexec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"exo/harness/secrets"
)

const streamSecret = "echoed-SECRET-0a1b2c3d4e5f"

// testRedactor redacts streamSecret as the harness does.
func testRedactor() *sseRedactor {
	r := secrets.NewRedactor(map[string][]byte{"s": []byte(streamSecret)})
	return newSSERedactor(r.String, r.NewStream)
}

// anthropicDeltas is a Messages stream whose text and tool input carry text in pieces of n bytes.
func anthropicDeltas(text, input string, n int) string {
	var b strings.Builder
	ev := func(name string, data any) {
		j, _ := json.Marshal(data)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, j)
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "m", "content": []any{}}})
	ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
	for _, p := range pieces(text, n) {
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": p}})
		b.WriteString("event: ping\ndata: {\"type\":\"ping\"}\n\n")
	}
	ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	ev("content_block_start", map[string]any{"type": "content_block_start", "index": 1, "content_block": map[string]any{"type": "tool_use", "id": "t", "name": "bash", "input": map[string]any{}}})
	for _, p := range pieces(input, n) {
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 1, "delta": map[string]any{"type": "input_json_delta", "partial_json": p}})
	}
	ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 1})
	ev("message_stop", map[string]any{"type": "message_stop"})
	return b.String()
}

func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// folded is what an agent makes of a Messages stream: each block's text joined.
func folded(t *testing.T, stream string) []string {
	t.Helper()
	var blocks []string
	for _, d := range sseEvents(strings.NewReader(stream)) {
		var e struct {
			Type  string
			Index int
			Delta struct {
				Type        string
				Text        string
				PartialJSON string `json:"partial_json"`
			}
		}
		if err := json.Unmarshal([]byte(d), &e); err != nil {
			t.Fatalf("an event is not JSON: %s", d)
		}
		if e.Type != "content_block_delta" {
			continue
		}
		for len(blocks) <= e.Index {
			blocks = append(blocks, "")
		}
		blocks[e.Index] += e.Delta.Text + e.Delta.PartialJSON
	}
	return blocks
}

// TestSSERedactionCatchesSplitSecrets: a secret streamed in pieces of every size, fed in chunks
// of every size, never reaches the agent, and what the agent folds is the redacted answer; a
// stream without a secret passes byte for byte.
func TestSSERedactionCatchesSplitSecrets(t *testing.T) {
	text := "You said " + streamSecret + ", twice: " + streamSecret + "."
	input, _ := json.Marshal(map[string]string{"command": "echo " + streamSecret})
	label := secrets.Label("s")
	for n := 1; n <= len(text); n += 3 {
		stream := anthropicDeltas(text, string(input), n)
		for _, chunk := range []int{1, 7, 64, len(stream)} {
			red := testRedactor()
			var out []byte
			for i := 0; i < len(stream); i += chunk {
				out = append(out, red.write([]byte(stream[i:min(i+chunk, len(stream))]))...)
			}
			out = append(out, red.end()...)
			if bytes.Contains(out, []byte(streamSecret)) {
				t.Fatalf("pieces %d, chunks %d: the secret reached the agent", n, chunk)
			}
			got := folded(t, string(out))
			if len(got) != 2 || got[0] != "You said "+label+", twice: "+label+"." {
				t.Fatalf("pieces %d, chunks %d: the agent folds %q", n, chunk, got)
			}
			var args map[string]string
			if err := json.Unmarshal([]byte(got[1]), &args); err != nil || args["command"] != "echo "+label {
				t.Fatalf("pieces %d, chunks %d: the tool input %q: %v", n, chunk, got[1], err)
			}
		}
	}
	// Without a secret: the same answer; with no piece that could start one, the same
	// bytes.
	clean := anthropicDeltas("nothing to hide here, echo", `{"command":"ls"}`, 3)
	red := testRedactor()
	out := string(red.write([]byte(clean))) + string(red.end())
	if got, want := folded(t, out), folded(t, clean); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("a stream without a secret folds to %q, want %q", got, want)
	}
	plain := anthropicDeltas("zzz zzz zzz", `{"zz":"zz"}`, 3)
	red = testRedactor()
	if out := string(red.write([]byte(plain))) + string(red.end()); out != plain {
		t.Fatalf("a stream nothing could be a secret in changed:\n%s\nwant\n%s", out, plain)
	}
}

// TestSSERedactionOfResponsesDeltas: the Responses wire's text and argument deltas are redacted
// per item, and response.completed, which repeats the whole output, whole.
func TestSSERedactionOfResponsesDeltas(t *testing.T) {
	var b strings.Builder
	for _, p := range pieces("see "+streamSecret+" here", 4) {
		d, _ := json.Marshal(map[string]any{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": p})
		fmt.Fprintf(&b, "event: response.output_text.delta\ndata: %s\n\n", d)
	}
	d, _ := json.Marshal(map[string]any{"type": "response.completed", "response": map[string]any{"output": []any{map[string]any{"type": "message", "content": []any{map[string]any{"type": "output_text", "text": "see " + streamSecret + " here"}}}}}})
	fmt.Fprintf(&b, "event: response.completed\ndata: %s\n\n", d)
	red := testRedactor()
	out := string(red.write([]byte(b.String()))) + string(red.end())
	if strings.Contains(out, streamSecret) {
		t.Fatalf("the secret reached the agent:\n%s", out)
	}
	var text strings.Builder
	for _, d := range sseEvents(strings.NewReader(out)) {
		var e struct{ Type, Delta string }
		json.Unmarshal([]byte(d), &e)
		if e.Type == "response.output_text.delta" {
			text.WriteString(e.Delta)
		}
	}
	if want := "see " + secrets.Label("s") + " here"; text.String() != want {
		t.Fatalf("the agent folds %q, want %q", text.String(), want)
	}
}

// TestEndpointRedactsBothWays: a sealed secret in a request body (what a native tool read) does
// not reach the upstream, one the upstream streams back or quotes in an error body does not reach
// the agent. (Before, the endpoint passed both through as they came.)
func TestEndpointRedactsBothWays(t *testing.T) {
	h, _, ep, srv := endpointFixture(t, `
prompts:
  - when: fail
    turns:
      - status: 401
        error: "invalid x-api-key sk-sealed-value-1234567890"
  - turns:
      - text: "The file says echoed-SECRET-0a1b2c3d4e5f, the key is sk-sealed-value-1234567890."
        chunk: 3
`)
	if err := h.SetSecret("echo", []byte(streamSecret)); err != nil {
		t.Fatal(err)
	}
	code, out := call(t, ep, ep.Token(), "the tool read "+streamSecret)
	if code != 200 || !strings.Contains(out, "message_stop") {
		t.Fatalf("%d %s", code, out)
	}
	for _, v := range []string{streamSecret, "sk-sealed-value-1234567890"} {
		if strings.Contains(out, v) {
			t.Fatalf("the agent received %s:\n%s", v, out)
		}
	}
	if body := srv.Messages()[0].Body; bytes.Contains(body, []byte(streamSecret)) || !bytes.Contains(body, []byte(secrets.Label("echo"))) {
		t.Fatalf("the upstream received %s", body)
	}
	code, out = call(t, ep, ep.Token(), "fail")
	if code != 401 || strings.Contains(out, "sk-sealed-value-1234567890") || !strings.Contains(out, "invalid x-api-key") {
		t.Fatalf("error answer %d %s", code, out)
	}
	// A whole (not streamed) answer too.
	req, _ := http.NewRequest(http.MethodPost, ep.URL()+"/v1/messages", strings.NewReader(`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("X-Api-Key", ep.Token())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if bytes.Contains(whole, []byte(streamSecret)) || bytes.Contains(whole, []byte("sk-sealed-value-1234567890")) {
		t.Fatalf("a whole answer carried a secret: %s", whole)
	}
	if err := ep.log.Flush(); err != nil {
		t.Fatal(err)
	}
	evs, _ := h.Events(ep.log.Session(), 0, 0)
	for _, e := range evs {
		if bytes.Contains(e.Data, []byte(streamSecret)) || bytes.Contains(e.Data, []byte("sk-sealed-value-1234567890")) {
			t.Fatalf("event %s holds a secret", e.Type)
		}
	}
}

// TestSSERedactionOfGeminiChunks: a Gemini stream (whole GenerateContentResponse chunks) that
// carries a sealed secret in 5-byte pieces, in its thoughts and its answer, the last piece in
// the chunk with finishReason and usage, reaches the agent with the secret redacted in what it
// joins, each part's other fields as they came, and nothing after the final chunk.
func TestSSERedactionOfGeminiChunks(t *testing.T) {
	var in strings.Builder
	chunk := func(part map[string]any, final bool) {
		c := map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "index": 0}
		resp := map[string]any{"candidates": []any{c}, "modelVersion": "gemini-2.5-pro"}
		if final {
			c["finishReason"] = "STOP"
			resp["usageMetadata"] = map[string]any{"promptTokenCount": 12, "candidatesTokenCount": 9, "thoughtsTokenCount": 4}
		}
		j, _ := json.Marshal(resp)
		fmt.Fprintf(&in, "data: %s\r\n\r\n", j)
	}
	thought := "I will repeat " + streamSecret + " carefully"
	answer := "The value is " + streamSecret
	for _, p := range pieces(thought, 5) {
		chunk(map[string]any{"text": p, "thought": true}, false)
	}
	ps := pieces(answer, 5)
	for i, p := range ps {
		chunk(map[string]any{"text": p}, i == len(ps)-1)
	}
	r := testRedactor()
	var out []byte
	for _, c := range pieces(in.String(), 7) {
		out = append(out, r.write([]byte(c))...)
	}
	out = append(out, r.end()...)
	if bytes.Contains(out, []byte(streamSecret[:10])) {
		t.Fatalf("the secret's start reached the agent:\n%s", out)
	}
	var thoughts, text strings.Builder
	finals, afterFinal := 0, 0
	for _, d := range sseEvents(bytes.NewReader(out)) {
		var e struct {
			Candidates []struct {
				Content struct {
					Parts []struct {
						Text    string `json:"text"`
						Thought bool   `json:"thought"`
					} `json:"parts"`
				} `json:"content"`
				FinishReason string `json:"finishReason"`
			} `json:"candidates"`
			UsageMetadata *struct {
				Thoughts int `json:"thoughtsTokenCount"`
			} `json:"usageMetadata"`
		}
		if err := json.Unmarshal([]byte(d), &e); err != nil || len(e.Candidates) != 1 {
			t.Fatalf("event %q: %v", d, err)
		}
		if finals > 0 {
			afterFinal++
		}
		c := e.Candidates[0]
		for _, p := range c.Content.Parts {
			if p.Thought {
				thoughts.WriteString(p.Text)
			} else {
				text.WriteString(p.Text)
			}
		}
		if c.FinishReason == "STOP" {
			finals++
			if e.UsageMetadata == nil || e.UsageMetadata.Thoughts != 4 {
				t.Fatalf("the final chunk lost its usage: %s", d)
			}
		}
	}
	if thoughts.String() != "I will repeat ‹secret:s› carefully" || text.String() != "The value is ‹secret:s›" {
		t.Fatalf("joined: thoughts %q, text %q", thoughts.String(), text.String())
	}
	if finals != 1 || afterFinal != 0 {
		t.Fatalf("%d final chunks, %d events after the final one", finals, afterFinal)
	}
}
