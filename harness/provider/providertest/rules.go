package providertest

import (
	"encoding/json"
	"fmt"
)

// DeepSeekReasoningRule checks a Chat Completions request as DeepSeek's API does in thinking
// mode: every assistant message with tool calls must carry reasoning_content, in every later
// request. A request that breaks the rule gets the HTTP 400 DeepSeek answers, with its
// message as users have reported it from the live API
// (https://api-docs.deepseek.com/guides/thinking_mode#tool-calls).
func DeepSeekReasoningRule(body []byte) *Reply {
	var req struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return &Reply{Status: 400, Header: map[string]string{"Content-Type": "application/json"},
			Body: `{"error":{"message":"Failed to deserialize the JSON body into the target type","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`}
	}
	for i, m := range req.Messages {
		_, calls := m["tool_calls"]
		_, reasoning := m["reasoning_content"]
		if string(m["role"]) == `"assistant"` && calls && !reasoning {
			msg := fmt.Sprintf("Missing `reasoning_content` field in the assistant message at message index %d. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls", i)
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": "invalid_request_error"}})
			return &Reply{Status: 400, Header: map[string]string{"Content-Type": "application/json"}, Body: string(b)}
		}
	}
	return nil
}

// AnthropicThinkingRule checks a Messages request as the API does with extended thinking on:
// the first assistant message after the last user message of the conversation's own (not one
// of tool results only) must start with a thinking or redacted_thinking block. A request that
// breaks the rule gets the API's HTTP 400, its message as the live API words it.
func AnthropicThinkingRule(body []byte) *Reply {
	var req struct {
		Thinking *struct {
			Type string `json:"type"`
		} `json:"thinking"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil || req.Thinking == nil || req.Thinking.Type != "enabled" {
		return nil
	}
	first := -1
	for i, m := range req.Messages {
		switch {
		case m.Role == "user" && !toolResultsOnly(m.Content):
			first = -1
		case m.Role == "assistant" && first < 0:
			first = i
		}
	}
	if first < 0 {
		return nil
	}
	var blocks []struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(req.Messages[first].Content, &blocks)
	found := "text"
	if len(blocks) > 0 {
		found = blocks[0].Type
	}
	if found == "thinking" || found == "redacted_thinking" {
		return nil
	}
	msg := fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking", first, found)
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}, "request_id": "req_011CVKthinking"})
	return &Reply{Status: 400, Header: map[string]string{"Content-Type": "application/json"}, Body: string(b)}
}

// toolResultsOnly reports whether a user message's content is tool results and nothing else.
func toolResultsOnly(content json.RawMessage) bool {
	var blocks []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(content, &blocks) != nil || len(blocks) == 0 {
		return false
	}
	for _, b := range blocks {
		if b.Type != "tool_result" {
			return false
		}
	}
	return true
}
