package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// sseEvent renders one SSE event of a Responses stream.
func sseEvent(v map[string]any) string {
	b, _ := json.Marshal(v)
	return fmt.Sprintf("event: %s\ndata: %s\n\n", v["type"], b)
}

// TestResponsesHugeArgumentsOnce streams a function call's ~170 KB of arguments as live
// services send them: 1,700+ deltas, then function_call_arguments.done and output_item.done
// each holding all of them. The call's arguments are the JSON once, not twice over.
func TestResponsesHugeArgumentsOnce(t *testing.T) {
	content := strings.Repeat("0123456789abcdef\\n", 10_000) // 170 KB of file content, escaped newlines
	args := `{"path":"big.txt","content":"` + content + `"}`
	var b strings.Builder
	b.WriteString(sseEvent(map[string]any{"type": "response.created", "sequence_number": 0, "response": map[string]any{"id": "resp_1", "model": "gpt-5.1", "status": "in_progress", "output": []any{}, "usage": nil}}))
	b.WriteString(sseEvent(map[string]any{"type": "response.output_item.added", "sequence_number": 1, "output_index": 0,
		"item": map[string]any{"id": "fc_1", "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_1", "name": "write_file"}}))
	seq := 2
	for i := 0; i < len(args); i += 100 {
		piece := args[i:min(i+100, len(args))]
		b.WriteString(sseEvent(map[string]any{"type": "response.function_call_arguments.delta", "sequence_number": seq, "item_id": "fc_1", "output_index": 0, "delta": piece, "obfuscation": "x"}))
		seq++
	}
	b.WriteString(sseEvent(map[string]any{"type": "response.function_call_arguments.done", "sequence_number": seq, "item_id": "fc_1", "output_index": 0, "arguments": args}))
	item := map[string]any{"id": "fc_1", "type": "function_call", "status": "completed", "arguments": args, "call_id": "call_1", "name": "write_file"}
	b.WriteString(sseEvent(map[string]any{"type": "response.output_item.done", "sequence_number": seq + 1, "output_index": 0, "item": item}))
	b.WriteString(sseEvent(map[string]any{"type": "response.completed", "sequence_number": seq + 2, "response": map[string]any{"id": "resp_1", "model": "gpt-5.1", "status": "completed",
		"output": []any{item}, "usage": map[string]any{"input_tokens": 100, "output_tokens": 50000, "input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}}}))
	api := newFakeAPI(t, reply{body: b.String()})
	p := NewOpenAI(Config{APIKey: "sk-test", BaseURL: api.srv.URL + "/v1/"})
	resp, err := p.Stream(context.Background(), testRequest("gpt-5.1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 {
		t.Fatalf("%d tool calls", len(resp.ToolCalls))
	}
	got := string(resp.ToolCalls[0].Arguments)
	if got != args {
		t.Fatalf("arguments: %d bytes (valid JSON: %v), want the %d sent once", len(got), json.Valid([]byte(got)), len(args))
	}
}

// TestOddUsageFieldsNeverFailATurn streams good answers whose usage fields come in the shapes
// live services and gateways send: an object-valued cost (DeepSeek through a gateway), counts
// as floats and strings, nulls, arrays. Usage is read only for accounting: the answer must
// arrive whole, with what could be read counted.
func TestOddUsageFieldsNeverFailATurn(t *testing.T) {
	chat := func(usage string) string {
		return `data: {"id":"c1","object":"chat.completion.chunk","model":"deepseek-chat","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}` + "\n\n" +
			`data: {"id":"c1","object":"chat.completion.chunk","model":"deepseek-chat","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":` + usage + `}` + "\n\n" +
			"data: [DONE]\n\n"
	}
	cases := []struct {
		name, usage string
		want        Usage
	}{
		{"object cost", `{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"cost":{"total_cost":0.0012,"currency":"USD","input_cost":0.001}}`, Usage{Input: 10, Output: 5, Cost: 0.0012}},
		{"nested cost", `{"prompt_tokens":10,"completion_tokens":5,"cost":{"usd":{"total":0.5}}}`, Usage{Input: 10, Output: 5, Cost: 0.5}},
		{"float counts", `{"prompt_tokens":10.0,"completion_tokens":5.0,"prompt_tokens_details":{"cached_tokens":4.0}}`, Usage{Input: 10, Output: 5, Cached: 4}},
		{"string counts and cost", `{"prompt_tokens":"10","completion_tokens":"5","cost":"0.25"}`, Usage{Input: 10, Output: 5, Cost: 0.25}},
		{"nulls and arrays", `{"prompt_tokens":10,"completion_tokens":5,"cost":null,"prompt_tokens_details":null,"completion_tokens_details":{"reasoning_tokens":[1,2]},"cost_in_usd_ticks":true}`, Usage{Input: 10, Output: 5}},
		{"negative and huge", `{"prompt_tokens":10,"completion_tokens":5,"cost":-3,"prompt_cache_hit_tokens":1e300}`, Usage{Input: 10, Output: 5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			api := newFakeAPI(t, reply{body: chat(c.usage)})
			p := NewOpenAICompatible(Config{APIKey: "sk-test", BaseURL: api.srv.URL + "/v1"})
			resp, err := p.Stream(context.Background(), testRequest("deepseek-chat"), nil)
			if err != nil {
				t.Fatalf("a good answer failed on its usage: %v", err)
			}
			if resp.Text != "Hello" {
				t.Errorf("text %q", resp.Text)
			}
			if resp.Usage.Input != c.want.Input || resp.Usage.Output != c.want.Output || resp.Usage.Cached != c.want.Cached || resp.Usage.Cost != c.want.Cost {
				t.Errorf("usage %+v, want %+v", resp.Usage, c.want)
			}
		})
	}
	anthropic := `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":"12","output_tokens":1.0,"cache_read_input_tokens":null,"cache_creation_input_tokens":{"ephemeral_5m_input_tokens":0}}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":"7"}}

event: message_stop
data: {"type":"message_stop"}

`
	api := newFakeAPI(t, reply{body: anthropic})
	p := NewAnthropic(Config{APIKey: "sk-ant-test", BaseURL: api.srv.URL})
	resp, err := p.Stream(context.Background(), testRequest("claude-sonnet-4-5"), nil)
	if err != nil {
		t.Fatalf("a good Anthropic answer failed on its usage: %v", err)
	}
	if resp.Text != "Hi" || resp.Usage.Input != 12 || resp.Usage.Output != 7 {
		t.Errorf("anthropic: %q %+v", resp.Text, resp.Usage)
	}
}
