package provider

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"exo/harness/provider/providertest"
)

// hostedAt is an HTTP client that sends every request meant for a public host to srv
// instead, so that a provider configured with the real base URL (and the host rules exo
// keeps for it) talks to a local server.
func hostedAt(srv string) *http.Client {
	target, _ := url.Parse(srv)
	return &http.Client{Transport: rewriteHost(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host, r.Host = target.Scheme, target.Host, target.Host
		return http.DefaultTransport.RoundTrip(r)
	})}
}

// rewriteHost adapts a function to http.RoundTripper.
type rewriteHost func(*http.Request) (*http.Response, error)

// RoundTrip calls the function.
func (f rewriteHost) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// fixtureReplies reads fixtures under testdata/providers.
func fixtureReplies(t *testing.T, names ...string) []providertest.Reply {
	t.Helper()
	var out []providertest.Reply
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "providers", n))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, providertest.Reply{Body: string(b)})
	}
	return out
}

// twoTurns plays a tool loop (the answer with tool calls, the result, the answer) and a
// second user turn against p, and returns the responses.
func twoTurns(t *testing.T, p Provider, model string) []Response {
	t.Helper()
	req := Request{Model: model, Messages: []Message{{Role: RoleUser, Text: "What is in this project?"}}}
	var out []Response
	for i := 0; i < 3; i++ {
		resp, err := p.Stream(context.Background(), req, nil)
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		out = append(out, resp)
		req.Messages = append(req.Messages, Message{Role: RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls, Reasoning: resp.Reasoning})
		for _, c := range resp.ToolCalls {
			req.Messages = append(req.Messages, Message{Role: RoleTool, ToolCallID: c.ID, Text: "README.md\nhello.py"})
		}
		if len(resp.ToolCalls) == 0 {
			req.Messages = append(req.Messages, Message{Role: RoleUser, Text: "And which file is the script?"})
		}
	}
	return out
}

// TestDeepSeekGetsReasoningContentOnEveryToolCall talks to DeepSeek's own host (a local server
// that checks requests as DeepSeek does): the second turn carries the first turn's
// reasoning_content, and an earlier tool call without any (another model's answer) gets an
// empty one rather than a refused request.
func TestDeepSeekGetsReasoningContentOnEveryToolCall(t *testing.T) {
	srv := providertest.NewCheckedReplyServer(providertest.DeepSeekReasoningRule,
		fixtureReplies(t, "deepseek-1-tool.reconstructed.sse", "deepseek-2-answer.reconstructed.sse")...)
	defer srv.Close()
	p := NewOpenAICompatible(Config{APIKey: "k", BaseURL: "https://api.deepseek.com/v1", HTTPClient: hostedAt(srv.URL)})
	resps := twoTurns(t, p, "deepseek-reasoner")
	if r := resps[0].Reasoning; len(r) != 1 || r[0].Origin != "api.deepseek.com deepseek-reasoner" || r[0].Format != ReasoningContent {
		t.Fatalf("reasoning = %+v", r)
	}
	if u := resps[0].Usage; u.Input != 1412 || u.Cached != 1280 || u.Output != 58 || u.Reasoning != 21 {
		t.Errorf("usage = %+v (DeepSeek counts reasoning inside completion_tokens)", u)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	var b map[string]any
	_ = json.Unmarshal(reqs[2].Body, &b)
	wantAt(t, b, resps[0].Reasoning[0].Text, "messages", 1, "reasoning_content")
	wantAt(t, b, resps[1].Reasoning[0].Text, "messages", 3, "reasoning_content")

	foreign := Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c9", Name: "bash", Arguments: json.RawMessage(`{}`)}},
		Reasoning: []Reasoning{{Format: ReasoningContent, Text: "another model's thought", Origin: "api.example.com other"}}}
	params, _ := chatParams(Request{Model: "deepseek-reasoner", Messages: []Message{{Role: RoleUser, Text: "hi"}, foreign}},
		newEndpoint("https://api.deepseek.com/v1", "", "deepseek-reasoner"))
	raw, _ := json.Marshal(params)
	_ = json.Unmarshal(raw, &b)
	wantAt(t, b, "", "messages", 1, "reasoning_content")
	if bad := providertest.DeepSeekReasoningRule(raw); bad != nil {
		t.Errorf("DeepSeek would refuse: %s", bad.Body)
	}
}

// TestReasoningGoesBackOnlyWhereItCameFrom checks each request builder sends a part only to
// the endpoint and model that produced it (parts recorded without an origin go everywhere).
func TestReasoningGoesBackOnlyWhereItCameFrom(t *testing.T) {
	here, there := "api.anthropic.com claude-sonnet-4", "api.anthropic.com claude-opus-4-1"
	thinking := func(origin string) Reasoning {
		return Reasoning{Format: ReasoningAnthropic, Type: "thinking", Text: "t", Signature: "sig-" + origin, Origin: origin}
	}
	msg := Message{Role: RoleAssistant, Text: "ok", Reasoning: []Reasoning{thinking(there), thinking(here), thinking("")}}
	blocks := anthropicBlocks(msg, here)
	if len(blocks) != 3 || blocks[0].OfThinking.Signature != "sig-"+here || blocks[1].OfThinking.Signature != "sig-" {
		t.Errorf("blocks = %+v", blocks)
	}
	item := Reasoning{Format: ReasoningResponses, ID: "rs_1", Data: "enc", Origin: "api.openai.com gpt-5"}
	if got := responsesReasoning([]Reasoning{item}, "api.openai.com gpt-5-mini"); len(got) != 0 {
		t.Errorf("another model got the reasoning item: %+v", got)
	}
	if got := responsesReasoning([]Reasoning{item}, item.Origin); len(got) != 1 {
		t.Errorf("its own model did not: %+v", got)
	}
	chat := Message{Role: RoleAssistant, Text: "ok", Reasoning: []Reasoning{{Format: ReasoningContent, Text: "x", Origin: "a.example m"}}}
	if got := chatReasoningFields(chat, newEndpoint("https://b.example/v1", "", "m")); len(got) != 0 {
		t.Errorf("another endpoint got reasoning_content: %v", got)
	}
}

// TestReasoningOnlyAnswers checks an answer holding only reasoning (thinking cut off by the
// output limit, say): Chat Completions keeps it with empty content (DeepSeek wants every
// step's reasoning), the Responses API leaves it out (a reasoning item must be followed by
// the output it led to), Anthropic leaves it out (empty once the API drops old thinking).
func TestReasoningOnlyAnswers(t *testing.T) {
	only := func(r Reasoning) Request {
		return Request{Model: "m", Messages: []Message{{Role: RoleUser, Text: "hi"},
			{Role: RoleAssistant, Reasoning: []Reasoning{r}}, {Role: RoleUser, Text: "go on"}}}
	}
	cp, _ := chatParams(only(Reasoning{Format: ReasoningContent, Text: "thinking…"}), endpoint{})
	var b map[string]any
	raw, _ := json.Marshal(cp)
	_ = json.Unmarshal(raw, &b)
	wantAt(t, b, "assistant", "messages", 1, "role")
	wantAt(t, b, "", "messages", 1, "content")
	wantAt(t, b, "thinking…", "messages", 1, "reasoning_content")
	if cp, _ := chatParams(Request{Model: "m", Messages: []Message{{Role: RoleUser, Text: "hi"}, {Role: RoleAssistant}}}, endpoint{}); len(cp.Messages) != 1 {
		t.Errorf("an empty answer was sent: %d messages", len(cp.Messages))
	}
	rp, _ := responsesParams(only(Reasoning{Format: ReasoningResponses, ID: "rs_1", Data: "enc"}), false, "")
	if n := len(rp.Input.OfInputItemList); n != 2 {
		t.Errorf("responses input has %d items, want the two user messages", n)
	}
	ap, _ := anthropicParams(only(Reasoning{Format: ReasoningAnthropic, Type: "thinking", Text: "t", Signature: "s"}), "")
	if n := len(ap.Messages); n != 2 || ap.Messages[0].Role != "user" || ap.Messages[1].Role != "user" {
		t.Errorf("anthropic messages: %+v", ap.Messages)
	}
}

// TestChatReasoningFieldsMirrorTheStream decodes chat chunks with reasoning in each field a
// server uses and checks the next request sends it back in the same field: reasoning (vLLM),
// reasoning_content (DeepSeek), both when a server sent both (vLLM while renaming the field),
// and never reasoning_details whose text was redacted.
func TestChatReasoningFieldsMirrorTheStream(t *testing.T) {
	for _, c := range []struct {
		name, delta string
		want        map[string]any
	}{
		{"reasoning", `{"reasoning":"plan"}`, map[string]any{"reasoning": "plan"}},
		{"reasoning_content", `{"reasoning_content":"plan"}`, map[string]any{"reasoning_content": "plan"}},
		{"both", `{"reasoning_content":"plan","reasoning":"plan"}`, map[string]any{"reasoning_content": "plan", "reasoning": "plan"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := &chatState{acc: newAccumulator(nil)}
			for _, chunk := range []string{
				`{"choices":[{"index":0,"delta":` + c.delta + `}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
			} {
				if _, err := st.event([]byte(chunk)); err != nil {
					t.Fatal(err)
				}
			}
			resp := st.acc.response("m", Usage{}, st.stop)
			if got := ReasoningText(resp.Reasoning); got != "plan" {
				t.Errorf("shown %q: the same text twice?", got)
			}
			got := chatReasoningFields(Message{Role: RoleAssistant, ToolCalls: resp.ToolCalls, Reasoning: resp.Reasoning}, endpoint{})
			if len(got) != len(c.want) {
				t.Errorf("fields %v, want %v", got, c.want)
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
		})
	}
	redacted := Message{Role: RoleAssistant, Text: "ok", Reasoning: []Reasoning{{Format: ReasoningDetails, Type: "reasoning.text", Text: "‹secret:k›", Redacted: true}}}
	if got := chatReasoningFields(redacted, endpoint{}); len(got) != 0 {
		t.Errorf("a redacted reasoning_details entry went back: %v", got)
	}
}

// TestVercelCountsReasoningOutsideCompletionTokens replays every stream recorded from Vercel's
// AI Gateway against its real host name: exo's output tokens include the reasoning tokens
// Vercel leaves out of completion_tokens, so that the catalog's prices give Vercel's own cost
// for every model it served (gpt-5's simple answer: 19 in, 93 + 64 out, $0.00159375).
func TestVercelCountsReasoningOutsideCompletionTokens(t *testing.T) {
	checked := 0
	for _, c := range loadCassettes(t) {
		if c.Host() != hostVercel {
			continue
		}
		name, _ := filepath.Rel(recordedDir, c.Path)
		t.Run(name, func(t *testing.T) {
			srv := providertest.NewReplyServer(c.Replies(0)...)
			defer srv.Close()
			p := NewOpenAICompatible(Config{APIKey: "k", BaseURL: "https://" + hostVercel + "/v1", HTTPClient: hostedAt(srv.URL)})
			var first map[string]any
			_ = json.Unmarshal([]byte(c.Interactions[0].Request.Body), &first)
			model, _ := first["model"].(string)
			info, known := Lookup(model)
			req := Request{Model: model, Messages: []Message{{Role: RoleUser, Text: "hi"}}}
			for i := range c.Interactions {
				resp, err := p.Stream(context.Background(), req, nil)
				if err != nil {
					t.Fatalf("interaction %d: %v", i, err)
				}
				if known {
					priced := info.Cost(Usage{Input: resp.Usage.Input, Output: resp.Usage.Output, Cached: resp.Usage.Cached})
					if !near(priced, resp.Usage.Cost) {
						t.Errorf("interaction %d: usage %+v prices at %.8f, Vercel billed %.8f", i, resp.Usage, priced, resp.Usage.Cost)
					}
					checked++
				}
				req.Messages = append(req.Messages, Message{Role: RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls, Reasoning: resp.Reasoning})
				for _, tc := range resp.ToolCalls {
					req.Messages = append(req.Messages, Message{Role: RoleTool, ToolCallID: tc.ID, Text: "40 C"})
				}
			}
		})
	}
	if checked < 10 {
		t.Errorf("only %d Vercel answers checked against their cost", checked)
	}
}

// TestRedactedThinkingDecodes reads a stream whose thinking arrives as a redacted_thinking
// block (whole in content_block_start), whole and cut into 3-byte pieces: one opaque part,
// nothing shown, and it goes back unchanged before the tool call.
func TestRedactedThinkingDecodes(t *testing.T) {
	body := fixtureReplies(t, "anthropic-redacted-thinking-1-tool.reconstructed.sse")[0].Body
	var first Response
	for _, chunk := range []int{0, 3} {
		srv := providertest.NewReplyServer(providertest.Reply{Body: body, Chunk: chunk})
		rec := &recorder{}
		resp, err := NewAnthropic(Config{APIKey: "k", BaseURL: srv.URL}).Stream(context.Background(), Request{Model: "claude-sonnet-4-5", ThinkingBudget: 4096,
			Messages: []Message{{Role: RoleUser, Text: "Run hello.py"}}}, rec.add)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		r := resp.Reasoning
		if len(r) != 1 || r[0].Type != "redacted_thinking" || len(r[0].Data) != 1072 || r[0].Display() != "" || len(resp.ToolCalls) != 1 {
			t.Fatalf("chunk %d: reasoning %+v, calls %v", chunk, r, resp.ToolCalls)
		}
		for _, d := range rec.deltas {
			if d.Kind == DeltaReasoning {
				t.Errorf("redacted thinking shown: %q", d.Text)
			}
		}
		if chunk == 0 {
			first = resp
		} else if !reflect.DeepEqual(stripTiming(first), stripTiming(resp)) {
			t.Errorf("differs cut into 3-byte pieces")
		}
	}
	next := Request{Model: "claude-sonnet-4-5", ThinkingBudget: 4096, Messages: []Message{{Role: RoleUser, Text: "Run hello.py"},
		{Role: RoleAssistant, ToolCalls: first.ToolCalls, Reasoning: first.Reasoning},
		{Role: RoleTool, ToolCallID: first.ToolCalls[0].ID, Text: "hello"}}}
	p, _ := anthropicParams(next, first.Reasoning[0].Origin)
	raw, _ := json.Marshal(p)
	if bad := providertest.AnthropicThinkingRule(raw); bad != nil {
		t.Fatalf("the API would refuse: %s", bad.Body)
	}
	var b map[string]any
	_ = json.Unmarshal(raw, &b)
	wantAt(t, b, first.Reasoning[0].Data, "messages", 1, "content", 0, "data")
	wantAt(t, b, "tool_use", "messages", 1, "content", 1, "type")
}

// TestAzureDeploymentOfAReasoningModel replays Azure's recorded gpt-5-mini answers under a
// deployment name exo cannot recognise: the first request asks for encrypted reasoning only
// when the registration names an effort; without one, the answer's reasoning item tells exo
// the model reasons, and the next request asks for it and carries the item back.
func TestAzureDeploymentOfAReasoningModel(t *testing.T) {
	c := cassette(t, "TestAzureResponsesWithSummaryThinking/azure-gpt-5-mini/thinking-streaming.yaml")
	for _, effort := range []string{"", "low"} {
		srv := providertest.NewReplyServer(c.Replies(0)...)
		p := NewOpenAI(Config{APIKey: "k", BaseURL: srv.URL + "/openai/v1"})
		req := Request{Model: "prod-reasoner", ReasoningEffort: effort, Messages: []Message{{Role: RoleUser, Text: "weather?"}},
			Tools: []Tool{{Name: "weather", Schema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}}}`)}}}
		resp, err := p.Stream(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Reasoning) == 0 || len(resp.ToolCalls) == 0 {
			t.Fatalf("answer: %+v", resp)
		}
		req.Messages = append(req.Messages, Message{Role: RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls, Reasoning: resp.Reasoning},
			Message{Role: RoleTool, ToolCallID: resp.ToolCalls[0].ID, Text: "40 C"})
		if _, err := p.Stream(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		srv.Close()
		var b0, b1 map[string]any
		_ = json.Unmarshal(reqs[0].Body, &b0)
		_ = json.Unmarshal(reqs[1].Body, &b1)
		if effort == "" {
			wantAt(t, b0, nil, "include")
		} else {
			wantAt(t, b0, "reasoning.encrypted_content", "include", 0)
			wantAt(t, b1, "reasoning", "input", 1, "type")
			wantAt(t, b1, resp.Reasoning[0].Data, "input", 1, "encrypted_content")
		}
		wantAt(t, b1, "reasoning.encrypted_content", "include", 0)
	}
}
