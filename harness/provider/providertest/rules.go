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
