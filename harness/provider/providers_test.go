package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// apiCase describes one wire format for the shared end-to-end tests.
type apiCase struct {
	kind      string
	model     string
	newP      func(baseURL string) Provider
	path      string
	fixtures  [2]string // tool turn, answer turn
	malformed string
	errBody   func(errType, msg string) string
	call      ToolCall
	text      [2][]string // text deltas of both turns
	argPieces []string
	usage     Usage
	respModel string
	checkAuth func(t *testing.T, h http.Header)
	checkBody func(t *testing.T, first, second map[string]any)
}

func openAIErr(errType, msg string) string {
	return fmt.Sprintf(`{"error":{"message":%q,"type":%q,"param":null,"code":%q}}`, msg, errType, errType)
}

func anthropicErr(errType, msg string) string {
	return fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_011"}`, errType, msg)
}

var apiCases = []apiCase{
	{
		kind: "openai", model: "gpt-4.1", path: "/v1/responses",
		newP:      func(u string) Provider { return NewOpenAI(Config{APIKey: "sk-test-openai", BaseURL: u + "/v1/"}) },
		fixtures:  [2]string{"openai-responses-1-tool.sse", "openai-responses-2-answer.sse"},
		malformed: "openai-responses-malformed.sse", errBody: openAIErr,
		call: ToolCall{ID: "call_Xq7LpD2", Name: "list_dir", Arguments: json.RawMessage(`{"path":"."}`)},
		text: [2][]string{{"Let me", " look at", " the directory first."},
			{"The directory holds", " `README.md` and", " `main.go`."}},
		argPieces: []string{`{"pa`, `th":`, `"."}`},
		usage:     Usage{Input: 1412, Output: 38, Cached: 1280}, respModel: "gpt-4.1-2025-04-14",
		checkAuth: func(t *testing.T, h http.Header) {
			wantEq(t, "Authorization", h.Get("Authorization"), "Bearer sk-test-openai")
		},
		checkBody: checkResponsesBody,
	},
	{
		kind: "openai-compatible", model: "qwen2.5-coder:7b", path: "/v1/chat/completions",
		newP: func(u string) Provider {
			return NewOpenAICompatible(Config{APIKey: "sk-test-local", BaseURL: u + "/v1"})
		},
		fixtures:  [2]string{"chat-1-tool.sse", "chat-2-answer.sse"},
		malformed: "chat-malformed.sse", errBody: openAIErr,
		call: ToolCall{ID: "call_w9K2mP", Name: "write_file",
			Arguments: json.RawMessage(`{"path": "hello.py", "content": "print('hello from exo')\n"}`)},
		text:      [2][]string{{"I'll write", " the script."}, {"Wrote", " `hello.py`", "; it prints a greeting."}},
		argPieces: []string{`{"path": "hel`, `lo.py", "content": "print(`, `'hello from exo')\n"}`},
		usage:     Usage{Input: 980, Output: 41, Cached: 768}, respModel: "qwen2.5-coder:7b",
		checkAuth: func(t *testing.T, h http.Header) {
			wantEq(t, "Authorization", h.Get("Authorization"), "Bearer sk-test-local")
		},
		checkBody: checkChatBody,
	},
	{
		kind: "anthropic", model: "claude-sonnet-4-5", path: "/v1/messages",
		newP:      func(u string) Provider { return NewAnthropic(Config{APIKey: "sk-ant-test", BaseURL: u}) },
		fixtures:  [2]string{"anthropic-1-tool.sse", "anthropic-2-answer.sse"},
		malformed: "anthropic-malformed.sse", errBody: anthropicErr,
		call: ToolCall{ID: "toolu_01T3xWqZ", Name: "bash",
			Arguments: json.RawMessage(`{"command": "python3 hello.py", "timeout_s": 30}`)},
		text: [2][]string{{"I'll run", " the script", " to check it."},
			{"It printed", " `hello from exo`", ": the script works."}},
		argPieces: []string{`{"command": "pyth`, `on3 hello.py", "timeo`, `ut_s": 30}`},
		usage:     Usage{Input: 2044, Output: 71, Cached: 1830}, respModel: "claude-sonnet-4-5-20250929",
		checkAuth: func(t *testing.T, h http.Header) {
			wantEq(t, "x-api-key", h.Get("X-Api-Key"), "sk-ant-test")
			wantEq(t, "Authorization", h.Get("Authorization"), "")
			if h.Get("Anthropic-Version") == "" {
				t.Error("anthropic-version header missing")
			}
		},
		checkBody: checkAnthropicBody,
	},
}

// testRequest is the first request of the exchange.
func testRequest(model string) Request {
	return Request{
		Model: model, System: "You are exo, a coding agent.", MaxOutputTokens: 4096, CachePrefix: true,
		Messages: []Message{{Role: RoleUser, Text: "Write hello.py and run it."}},
		Tools: []Tool{
			{Name: "list_dir", Description: "List a directory.",
				Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "bash", Description: "Run a shell command.",
				Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"timeout_s":{"type":"integer"}},"required":["command"],"additionalProperties":false}`)},
		},
	}
}

// recorder collects deltas in order.
type recorder struct{ deltas []Delta }

func (r *recorder) add(d Delta) { r.deltas = append(r.deltas, d) }

// texts returns the text deltas; args the argument pieces.
func (r *recorder) texts() (texts, args []string, calls []Delta) {
	for _, d := range r.deltas {
		switch d.Kind {
		case DeltaText:
			texts = append(texts, d.Text)
		case DeltaToolArgs:
			args = append(args, d.Text)
		case DeltaToolCall:
			calls = append(calls, d)
		}
	}
	return
}

func TestProvidersToolExchange(t *testing.T) {
	for _, c := range apiCases {
		t.Run(c.kind, func(t *testing.T) {
			api := newFakeAPI(t, reply{file: c.fixtures[0], firstDelay: 20 * time.Millisecond}, reply{file: c.fixtures[1]})
			p := c.newP(api.srv.URL)
			req := testRequest(c.model)
			rec := &recorder{}
			resp, err := p.Stream(context.Background(), req, rec.add)
			if err != nil {
				t.Fatalf("turn 1: %v", err)
			}
			texts, args, calls := rec.texts()
			wantEq(t, "text deltas", texts, c.text[0])
			wantEq(t, "arg pieces", args, c.argPieces)
			wantEq(t, "call delta", calls, []Delta{{Kind: DeltaToolCall, ID: c.call.ID, Name: c.call.Name}})
			wantEq(t, "text", resp.Text, strings.Join(c.text[0], ""))
			wantEq(t, "tool calls", resp.ToolCalls, []ToolCall{c.call})
			wantEq(t, "stop", resp.StopReason, StopToolUse)
			wantEq(t, "usage", resp.Usage, c.usage)
			wantEq(t, "model", resp.Model, c.respModel)
			if resp.TTFT < 20*time.Millisecond {
				t.Errorf("ttft = %v, want ≥ 20ms (the server paused that long)", resp.TTFT)
			}

			req.Messages = append(req.Messages,
				Message{Role: RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls},
				Message{Role: RoleTool, ToolCallID: resp.ToolCalls[0].ID, Text: "README.md\nmain.go"})
			rec2 := &recorder{}
			resp2, err := p.Stream(context.Background(), req, rec2.add)
			if err != nil {
				t.Fatalf("turn 2: %v", err)
			}
			texts2, _, _ := rec2.texts()
			wantEq(t, "text deltas 2", texts2, c.text[1])
			wantEq(t, "stop 2", resp2.StopReason, StopEndTurn)
			if len(resp2.ToolCalls) != 0 {
				t.Errorf("turn 2 tool calls = %v", resp2.ToolCalls)
			}

			reqs := api.requests()
			if len(reqs) != 2 {
				t.Fatalf("requests = %d, want 2", len(reqs))
			}
			for _, r := range reqs {
				wantEq(t, "method", r.Method, http.MethodPost)
				wantEq(t, "path", r.Path, c.path)
				c.checkAuth(t, r.Header)
			}
			c.checkBody(t, reqs[0].Body, reqs[1].Body)
		})
	}
}

// wantEq fails the test when got and want differ.
func wantEq(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

// dig walks a decoded JSON value by keys and indices.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// wantAt checks one field of a decoded JSON body.
func wantAt(t *testing.T, body map[string]any, want any, path ...any) {
	t.Helper()
	if got := dig(body, path...); !reflect.DeepEqual(got, want) {
		t.Errorf("body%v = %#v, want %#v", path, got, want)
	}
}

func checkResponsesBody(t *testing.T, b1, b2 map[string]any) {
	wantAt(t, b1, "gpt-4.1", "model")
	wantAt(t, b1, true, "stream")
	wantAt(t, b1, false, "store")
	wantAt(t, b1, "You are exo, a coding agent.", "instructions")
	wantAt(t, b1, 4096.0, "max_output_tokens")
	wantAt(t, b1, "function", "tools", 0, "type")
	wantAt(t, b1, "list_dir", "tools", 0, "name")
	wantAt(t, b1, "List a directory.", "tools", 0, "description")
	wantAt(t, b1, "string", "tools", 0, "parameters", "properties", "path", "type")
	wantAt(t, b1, "user", "input", 0, "role")
	wantAt(t, b1, "Write hello.py and run it.", "input", 0, "content")
	wantAt(t, b2, "assistant", "input", 1, "role")
	wantAt(t, b2, "Let me look at the directory first.", "input", 1, "content")
	wantAt(t, b2, "function_call", "input", 2, "type")
	wantAt(t, b2, "call_Xq7LpD2", "input", 2, "call_id")
	wantAt(t, b2, "list_dir", "input", 2, "name")
	wantAt(t, b2, `{"path":"."}`, "input", 2, "arguments")
	wantAt(t, b2, "function_call_output", "input", 3, "type")
	wantAt(t, b2, "call_Xq7LpD2", "input", 3, "call_id")
	wantAt(t, b2, "README.md\nmain.go", "input", 3, "output")
}

func checkChatBody(t *testing.T, b1, b2 map[string]any) {
	wantAt(t, b1, "qwen2.5-coder:7b", "model")
	wantAt(t, b1, true, "stream")
	wantAt(t, b1, true, "stream_options", "include_usage")
	wantAt(t, b1, 4096.0, "max_tokens")
	wantAt(t, b1, "system", "messages", 0, "role")
	wantAt(t, b1, "You are exo, a coding agent.", "messages", 0, "content")
	wantAt(t, b1, "user", "messages", 1, "role")
	wantAt(t, b1, "function", "tools", 1, "type")
	wantAt(t, b1, "bash", "tools", 1, "function", "name")
	wantAt(t, b1, false, "tools", 1, "function", "parameters", "additionalProperties")
	wantAt(t, b2, "assistant", "messages", 2, "role")
	wantAt(t, b2, "I'll write the script.", "messages", 2, "content")
	wantAt(t, b2, "call_w9K2mP", "messages", 2, "tool_calls", 0, "id")
	wantAt(t, b2, "function", "messages", 2, "tool_calls", 0, "type")
	wantAt(t, b2, "write_file", "messages", 2, "tool_calls", 0, "function", "name")
	wantAt(t, b2, `{"path": "hello.py", "content": "print('hello from exo')\n"}`, "messages", 2, "tool_calls", 0, "function", "arguments")
	wantAt(t, b2, "tool", "messages", 3, "role")
	wantAt(t, b2, "call_w9K2mP", "messages", 3, "tool_call_id")
	wantAt(t, b2, "README.md\nmain.go", "messages", 3, "content")
}

func checkAnthropicBody(t *testing.T, b1, b2 map[string]any) {
	wantAt(t, b1, "claude-sonnet-4-5", "model")
	wantAt(t, b1, true, "stream")
	wantAt(t, b1, 4096.0, "max_tokens")
	wantAt(t, b1, "You are exo, a coding agent.", "system", 0, "text")
	wantAt(t, b1, "ephemeral", "system", 0, "cache_control", "type")
	wantAt(t, b1, "list_dir", "tools", 0, "name")
	wantAt(t, b1, "object", "tools", 1, "input_schema", "type")
	wantAt(t, b1, []any{"command"}, "tools", 1, "input_schema", "required")
	wantAt(t, b1, false, "tools", 1, "input_schema", "additionalProperties")
	wantAt(t, b1, "integer", "tools", 1, "input_schema", "properties", "timeout_s", "type")
	wantAt(t, b1, "user", "messages", 0, "role")
	wantAt(t, b1, "Write hello.py and run it.", "messages", 0, "content", 0, "text")
	wantAt(t, b2, "assistant", "messages", 1, "role")
	wantAt(t, b2, "I'll run the script to check it.", "messages", 1, "content", 0, "text")
	wantAt(t, b2, "tool_use", "messages", 1, "content", 1, "type")
	wantAt(t, b2, "toolu_01T3xWqZ", "messages", 1, "content", 1, "id")
	wantAt(t, b2, "python3 hello.py", "messages", 1, "content", 1, "input", "command")
	wantAt(t, b2, "user", "messages", 2, "role")
	wantAt(t, b2, "tool_result", "messages", 2, "content", 0, "type")
	wantAt(t, b2, "toolu_01T3xWqZ", "messages", 2, "content", 0, "tool_use_id")
	wantAt(t, b2, "README.md\nmain.go", "messages", 2, "content", 0, "content", 0, "text")
}

// sleeps records the waits a Reliable asked for instead of sleeping.
type sleeps struct{ got []time.Duration }

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.got = append(s.got, d)
	return nil
}

// reliable wraps p with a recording sleep and a fixed jitter of 0.5.
func reliable(p Provider, s *sleeps) *Reliable {
	return NewReliable(p, RetryPolicy{Sleep: s.sleep, Jitter: func() float64 { return 0.5 }}, nil)
}

func TestProvidersRetryAfter429(t *testing.T) {
	for _, c := range apiCases {
		t.Run(c.kind, func(t *testing.T) {
			api := newFakeAPI(t,
				reply{status: 429, header: map[string]string{"Retry-After": "7"}, body: c.errBody("rate_limit_error", "slow down")},
				reply{file: c.fixtures[1]})
			s := &sleeps{}
			r := reliable(c.newP(api.srv.URL), s)
			var told []string
			r.policy.OnRetry = func(attempt int, wait time.Duration, err error) {
				told = append(told, fmt.Sprintf("%d %s %v", attempt, wait, errors.Is(err, ErrRateLimited)))
			}
			resp, err := r.Stream(context.Background(), testRequest(c.model), nil)
			if err != nil {
				t.Fatal(err)
			}
			wantEq(t, "sleeps", s.got, []time.Duration{7 * time.Second})
			wantEq(t, "told", told, []string{"1 7s true"})
			wantEq(t, "text", resp.Text, strings.Join(c.text[1], ""))
			wantEq(t, "requests", len(api.requests()), 2)
		})
	}
}

func TestProvidersRetryAfterHTTPDate(t *testing.T) {
	c := apiCases[0]
	when := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	api := newFakeAPI(t,
		reply{status: 429, header: map[string]string{"Retry-After": when}, body: c.errBody("rate_limit_error", "slow down")},
		reply{file: c.fixtures[1]})
	s := &sleeps{}
	if _, err := reliable(c.newP(api.srv.URL), s).Stream(context.Background(), testRequest(c.model), nil); err != nil {
		t.Fatal(err)
	}
	if len(s.got) != 1 || s.got[0] < 85*time.Second || s.got[0] > 91*time.Second {
		t.Errorf("sleeps = %v, want one of about 90s", s.got)
	}
}

func TestProviders500ThenSuccess(t *testing.T) {
	for _, c := range apiCases {
		t.Run(c.kind, func(t *testing.T) {
			api := newFakeAPI(t, reply{status: 500, body: c.errBody("api_error", "internal")}, reply{file: c.fixtures[1]})
			s := &sleeps{}
			if _, err := reliable(c.newP(api.srv.URL), s).Stream(context.Background(), testRequest(c.model), nil); err != nil {
				t.Fatal(err)
			}
			// First backoff: base 500ms, equal jitter at 0.5 → 250ms + 125ms.
			wantEq(t, "sleeps", s.got, []time.Duration{375 * time.Millisecond})
		})
	}
}

func TestProvidersCutStream(t *testing.T) {
	for _, c := range apiCases {
		t.Run(c.kind, func(t *testing.T) {
			body := fixture(t, c.fixtures[0])
			esc, _ := json.Marshal(c.argPieces[1])
			cut := strings.Index(body, string(esc[1:len(esc)-1])) // mid-arguments, after text deltas
			if cut < 0 {
				t.Fatal("cut point not found in fixture")
			}
			api := newFakeAPI(t, reply{file: c.fixtures[0], cutAt: cut})
			s := &sleeps{}
			rec := &recorder{}
			resp, err := reliable(c.newP(api.srv.URL), s).Stream(context.Background(), testRequest(c.model), rec.add)
			if !errors.Is(err, ErrStreamCut) {
				t.Fatalf("err = %v, want ErrStreamCut", err)
			}
			if !reflect.DeepEqual(resp, Response{}) {
				t.Errorf("a cut stream returned a response: %+v", resp)
			}
			msg := err.Error()
			t.Log(msg)
			if !strings.HasPrefix(msg, c.kind+": stream cut after ") || !strings.HasSuffix(msg, "the turn can be retried") {
				t.Errorf("message = %q", msg)
			}
			if len(rec.deltas) == 0 {
				t.Error("no deltas before the cut")
			}
			wantEq(t, "requests (no retry once output was shown)", len(api.requests()), 1)
		})
	}
}

func TestProvidersCutBeforeOutputIsRetried(t *testing.T) {
	for _, c := range apiCases {
		t.Run(c.kind, func(t *testing.T) {
			api := newFakeAPI(t, reply{file: c.fixtures[1], cutAt: 40}, reply{file: c.fixtures[1]})
			s := &sleeps{}
			if _, err := reliable(c.newP(api.srv.URL), s).Stream(context.Background(), testRequest(c.model), nil); err != nil {
				t.Fatal(err)
			}
			wantEq(t, "retries", len(s.got), 1)
		})
	}
}

func TestProvidersMalformedChunk(t *testing.T) {
	for _, c := range apiCases {
		t.Run(c.kind, func(t *testing.T) {
			api := newFakeAPI(t, reply{file: c.malformed})
			resp, err := c.newP(api.srv.URL).Stream(context.Background(), testRequest(c.model), nil)
			if !errors.Is(err, ErrMalformedStream) {
				t.Fatalf("err = %v, want ErrMalformedStream", err)
			}
			if !reflect.DeepEqual(resp, Response{}) {
				t.Errorf("a malformed stream returned a response: %+v", resp)
			}
			t.Log(err)
			if !strings.Contains(err.Error(), "malformed stream after ") {
				t.Errorf("message = %q", err)
			}
		})
	}
}

func TestProvidersAuthNotRetried(t *testing.T) {
	for _, c := range apiCases {
		t.Run(c.kind, func(t *testing.T) {
			api := newFakeAPI(t, reply{status: 401, body: c.errBody("authentication_error", "invalid x-api-key")})
			s := &sleeps{}
			_, err := reliable(c.newP(api.srv.URL), s).Stream(context.Background(), testRequest(c.model), nil)
			if !errors.Is(err, ErrAuth) {
				t.Fatalf("err = %v, want ErrAuth", err)
			}
			if !strings.Contains(err.Error(), "exo secret set") {
				t.Errorf("message gives no action: %q", err)
			}
			wantEq(t, "sleeps", len(s.got), 0)
		})
	}
}

func TestAnthropicOverloadedInStreamIsRetried(t *testing.T) {
	c := apiCases[2]
	api := newFakeAPI(t, reply{file: "anthropic-overloaded.sse"}, reply{file: c.fixtures[1]})
	s := &sleeps{}
	resp, err := reliable(c.newP(api.srv.URL), s).Stream(context.Background(), testRequest(c.model), nil)
	if err != nil {
		t.Fatal(err)
	}
	wantEq(t, "retries", len(s.got), 1)
	wantEq(t, "usage", resp.Usage, Usage{Input: 2188, Output: 15, Cached: 1830, CacheWrite: 310})
}

func TestAnthropicOverloadedError(t *testing.T) {
	c := apiCases[2]
	api := newFakeAPI(t, reply{file: "anthropic-overloaded.sse"})
	_, err := c.newP(api.srv.URL).Stream(context.Background(), testRequest(c.model), nil)
	if !errors.Is(err, ErrOverloaded) {
		t.Fatalf("err = %v, want ErrOverloaded", err)
	}
	wantEq(t, "message", err.Error(), "anthropic: overloaded (overloaded_error: Overloaded); the turn can be retried")
}

func TestProvidersGiveUpAfterMaxAttempts(t *testing.T) {
	c := apiCases[1]
	api := newFakeAPI(t, reply{status: 503, body: c.errBody("server_error", "busy")})
	s := &sleeps{}
	_, err := reliable(c.newP(api.srv.URL), s).Stream(context.Background(), testRequest(c.model), nil)
	if !errors.Is(err, ErrServer) {
		t.Fatalf("err = %v, want ErrServer", err)
	}
	wantEq(t, "requests", len(api.requests()), 4)
	wantEq(t, "sleeps", s.got, []time.Duration{375 * time.Millisecond, 750 * time.Millisecond, 1500 * time.Millisecond})
}
