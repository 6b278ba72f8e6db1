package provider

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// roundTrip marshals SDK params to the JSON the API receives.
func roundTrip(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func conversation() []Message {
	return []Message{
		{Role: RoleUser, Text: "summary of earlier work", CacheBreakpoint: true},
		{Role: RoleAssistant, ToolCalls: []ToolCall{
			{ID: "t1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a"}`)},
			{ID: "t2", Name: "read_file", Arguments: json.RawMessage(`not json`)}}},
		{Role: RoleTool, ToolCallID: "t1", Text: "contents"},
		{Role: RoleTool, ToolCallID: "t2", Text: "no such file", IsError: true},
	}
}

func TestAnthropicParamsCachingAndToolResults(t *testing.T) {
	req := testRequest("claude-haiku-4-5")
	req.System, req.MaxOutputTokens = "", 0
	req.Messages = conversation()
	p, err := anthropicParams(req, "")
	if err != nil {
		t.Fatal(err)
	}
	b := roundTrip(t, p)
	wantAt(t, b, 64000.0, "max_tokens") // from the catalog
	wantAt(t, b, nil, "tools", 0, "cache_control")
	wantAt(t, b, "ephemeral", "tools", 1, "cache_control", "type") // no system: last tool
	wantAt(t, b, "ephemeral", "messages", 0, "content", 0, "cache_control", "type")
	wantAt(t, b, map[string]any{}, "messages", 1, "content", 1, "input") // bad JSON becomes {}
	if n := len(dig(b, "messages").([]any)); n != 3 {
		t.Fatalf("messages = %d, want 3 (tool results folded into one user message)", n)
	}
	wantAt(t, b, "t2", "messages", 2, "content", 1, "tool_use_id")
	wantAt(t, b, true, "messages", 2, "content", 1, "is_error")
}

func TestOpenAIParamsMarkFailedToolResults(t *testing.T) {
	req := testRequest("gpt-5")
	req.Messages = conversation()
	req.CacheKey = "session-1"
	rp, _ := responsesParams(req, true, "")
	b := roundTrip(t, rp)
	wantAt(t, b, "session-1", "prompt_cache_key")
	wantAt(t, b, "[error] no such file", "input", 4, "output")
	wantAt(t, b, `"not json"`, "input", 2, "arguments")
	cp, _ := chatParams(req, endpoint{})
	c := roundTrip(t, cp)
	wantAt(t, c, "[error] no such file", "messages", 4, "content")
	wantAt(t, c, "t2", "messages", 4, "tool_call_id")
}

func TestBadSchemaIsAnError(t *testing.T) {
	req := testRequest("gpt-5")
	req.Tools[0].Schema = json.RawMessage(`{`)
	if _, err := responsesParams(req, true, ""); err == nil {
		t.Error("responses: no error")
	}
	if _, err := chatParams(req, endpoint{}); err == nil {
		t.Error("chat: no error")
	}
	if _, err := anthropicParams(req, ""); err == nil {
		t.Error("anthropic: no error")
	}
}

func TestChatCallsSentWholeWithIndexZero(t *testing.T) {
	h := `"id":"c","object":"chat.completion.chunk","created":1,"model":"llama"`
	body := `data: {` + h + `,"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"glob","arguments":"{\"pattern\":\"*.go\"}"}}]}}]}` + "\n\n" +
		`data: {` + h + `,"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","type":"function","function":{"name":"list_dir","arguments":"{\"path\":\".\"}"}}]}}]}` + "\n\n" +
		`data: {` + h + `,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" + "data: [DONE]\n\n"
	api := newFakeAPI(t, reply{body: body})
	resp, err := NewOpenAICompatible(Config{BaseURL: api.srv.URL}).Stream(t.Context(), testRequest("llama"), nil)
	if err != nil {
		t.Fatal(err)
	}
	wantEq(t, "calls", resp.ToolCalls, []ToolCall{
		{ID: "a", Name: "glob", Arguments: json.RawMessage(`{"pattern":"*.go"}`)},
		{ID: "b", Name: "list_dir", Arguments: json.RawMessage(`{"path":"."}`)}})
	wantEq(t, "stop", resp.StopReason, StopToolUse)
	wantEq(t, "usage (server sent none)", resp.Usage, Usage{})
}

func TestChatInStreamErrors(t *testing.T) {
	for body, want := range map[string]string{
		`data: {"error":"model requires more system memory"}` + "\n\n":                           "model requires more system memory",
		`data: {"error":{"message":"context overflow","code":"ctx"}}` + "\n\n":                   "context overflow",
		`data: {"choices":[{"index":0,"delta":{"content":"hi"}}],"error":{"code":503}}` + "\n\n": "503",
	} {
		api := newFakeAPI(t, reply{body: body})
		_, err := NewOpenAICompatible(Config{BaseURL: api.srv.URL}).Stream(t.Context(), testRequest("m"), nil)
		if !errors.Is(err, ErrServer) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", body, err)
		}
	}
}

func TestCompatibleBaseURLGetsV1(t *testing.T) {
	api := newFakeAPI(t, reply{file: "chat-2-answer.sse"})
	if _, err := NewOpenAICompatible(Config{BaseURL: api.srv.URL + "/"}).Stream(t.Context(), testRequest("m"), nil); err != nil {
		t.Fatal(err)
	}
	wantEq(t, "path", api.requests()[0].Path, "/v1/chat/completions")
}

func TestAnthropicBreakpointsStayWithinTheLimit(t *testing.T) {
	req := testRequest("claude-sonnet-4-5")
	for i := 0; i < 6; i++ {
		req.Messages = append(req.Messages, Message{Role: RoleUser, Text: "m", CacheBreakpoint: true})
	}
	p, _ := anthropicParams(req, "")
	b, _ := json.Marshal(p)
	if n := strings.Count(string(b), `"cache_control"`); n != 4 {
		t.Fatalf("cache_control markers = %d, want 4", n)
	}
	m := roundTrip(t, p)
	wantAt(t, m, nil, "messages", 3, "content", 0, "cache_control")
	wantAt(t, m, "ephemeral", "messages", 6, "content", 0, "cache_control", "type")
}

func TestThinkingStaysOnForTheWholeToolLoop(t *testing.T) {
	signed := []Reasoning{{Format: ReasoningAnthropic, Type: "thinking", Text: "plan", Signature: "EtYD"}}
	call := func(id string) []ToolCall {
		return []ToolCall{{ID: id, Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)}}
	}
	loop := func(firstReasoning []Reasoning) Request {
		req := testRequest("claude-sonnet-4-5")
		req.ThinkingBudget = 2048
		req.Messages = append(req.Messages,
			Message{Role: RoleAssistant, ToolCalls: call("t1"), Reasoning: firstReasoning},
			Message{Role: RoleTool, ToolCallID: "t1", Text: "a"},
			Message{Role: RoleAssistant, ToolCalls: call("t2")}, // no interleaved thinking: no block
			Message{Role: RoleTool, ToolCallID: "t2", Text: "b"})
		return req
	}
	p, _ := anthropicParams(loop(signed), "")
	b := roundTrip(t, p)
	wantAt(t, b, 2048.0, "thinking", "budget_tokens")
	wantAt(t, b, "thinking", "messages", 1, "content", 0, "type")
	wantAt(t, b, "tool_use", "messages", 3, "content", 0, "type")
	p, _ = anthropicParams(loop(nil), "")
	wantAt(t, roundTrip(t, p), nil, "thinking")
	// A new user message starts a new turn: thinking is back on.
	req := loop(nil)
	req.Messages = append(req.Messages, Message{Role: RoleAssistant, Text: "done"}, Message{Role: RoleUser, Text: "next"})
	p, _ = anthropicParams(req, "")
	wantAt(t, roundTrip(t, p), 2048.0, "thinking", "budget_tokens")
	req.ThinkingBudget = 100 // below the API's minimum
	p, _ = anthropicParams(req, "")
	wantAt(t, roundTrip(t, p), 1024.0, "thinking", "budget_tokens")
}
