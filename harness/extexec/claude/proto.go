package claude

import (
	"encoding/base64"
	"encoding/json"

	"exo/harness/provider"
)

// This file holds the shapes of Claude Code's stream-json protocol (with --input-format and
// --output-format stream-json and --permission-prompt-tool stdio), as far as exo reads them.

// envelope is any line Claude writes: its type says which of the other fields matter.
type envelope struct {
	Type            string          `json:"type"`
	Subtype         string          `json:"subtype"`
	RequestID       string          `json:"request_id"`
	Request         json.RawMessage `json:"request"`
	Response        json.RawMessage `json:"response"`
	Event           json.RawMessage `json:"event"`
	Message         json.RawMessage `json:"message"`
	ParentToolUseID *string         `json:"parent_tool_use_id"`
	SessionID       string          `json:"session_id"`
}

// controlRequest is the request of a control_request from Claude.
type controlRequest struct {
	Subtype string `json:"subtype"`
	// can_use_tool (Input is the tool's input), hook_callback (Input is the hook's input)
	ToolName   string          `json:"tool_name"`
	Input      json.RawMessage `json:"input"`
	ToolUseID  string          `json:"tool_use_id"`
	CallbackID string          `json:"callback_id"`
	// mcp_message
	ServerName string          `json:"server_name"`
	Message    json.RawMessage `json:"message"`
}

// hookInput is the input of a hook_callback request for a PreToolUse hook.
type hookInput struct {
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolUseID     string          `json:"tool_use_id"`
}

// controlResponse is the response of a control_response from Claude.
type controlResponse struct {
	Subtype   string          `json:"subtype"` // success, error
	RequestID string          `json:"request_id"`
	Response  json.RawMessage `json:"response"`
	Error     string          `json:"error"`
}

// streamEvent is the raw Messages stream event of a stream_event line.
type streamEvent struct {
	Type  string `json:"type"`
	Delta *struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Thinking string `json:"thinking"`
	} `json:"delta"`
}

// resultMessage is the result line that ends a turn.
type resultMessage struct {
	Subtype           string            `json:"subtype"`
	IsError           bool              `json:"is_error"`
	Result            string            `json:"result"`
	NumTurns          int               `json:"num_turns"`
	DurationMs        int64             `json:"duration_ms"`
	DurationAPIMs     int64             `json:"duration_api_ms"`
	TotalCostUSD      float64           `json:"total_cost_usd"`
	StopReason        string            `json:"stop_reason"`
	PermissionDenials []json.RawMessage `json:"permission_denials"`
	Errors            []string          `json:"errors"`
}

// contentBlock is a block of an assistant or user message.
type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// chatMessage is the message of an assistant or user line.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// blocks decodes a message's content: a string or an array of blocks.
func (m chatMessage) blocks() []contentBlock {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []contentBlock{{Type: "text", Text: s}}
	}
	var bs []contentBlock
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

// resultText flattens a tool_result's content (a string or text blocks).
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []contentBlock
	_ = json.Unmarshal(raw, &bs)
	out := ""
	for _, b := range bs {
		if b.Type == "text" {
			if out != "" {
				out += "\n"
			}
			out += b.Text
		}
	}
	return out
}

// userLine is a prompt sent to Claude, its images after its text as base64 image blocks (the
// Messages API's, which stream-json takes as they are).
func userLine(text string, images ...provider.Image) map[string]any {
	content := []map[string]any{{"type": "text", "text": text}}
	for _, im := range images {
		content = append(content, map[string]any{"type": "image", "source": map[string]any{
			"type": "base64", "media_type": im.MediaType, "data": base64.StdEncoding.EncodeToString(im.Data)}})
	}
	return map[string]any{"type": "user", "session_id": "", "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": content}}
}

// controlSuccess answers one of Claude's control requests.
func controlSuccess(id string, response any) map[string]any {
	return map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": id, "response": response}}
}

// controlFailure answers one of Claude's control requests with an error.
func controlFailure(id, msg string) map[string]any {
	return map[string]any{"type": "control_response", "response": map[string]any{"subtype": "error", "request_id": id, "error": msg}}
}
