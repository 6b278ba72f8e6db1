package extexec

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"exo/harness/provider"
)

// responsesRequest is a Responses request as an agent sends it, decoded to be served by another
// kind of model.
type responsesRequest struct {
	Model           string            `json:"model"`
	Instructions    string            `json:"instructions"`
	Input           []json.RawMessage `json:"input"`
	Tools           []responsesTool   `json:"tools"`
	MaxOutputTokens int               `json:"max_output_tokens"`
	Stream          bool              `json:"stream"`
}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// responsesInput is one input item.
type responsesInput struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Output    json.RawMessage `json:"output"`
}

// partsText joins the text of content (a string or parts).
func partsText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// toProvider maps the request onto exo's provider request for model.
func (q *responsesRequest) toProvider(model string, maxOut int) (provider.Request, error) {
	req := provider.Request{Model: model, System: q.Instructions, MaxOutputTokens: q.MaxOutputTokens}
	if maxOut > 0 && (req.MaxOutputTokens == 0 || req.MaxOutputTokens > maxOut) {
		req.MaxOutputTokens = maxOut
	}
	for _, t := range q.Tools {
		if t.Type == "function" && t.Name != "" && len(t.Parameters) > 0 {
			req.Tools = append(req.Tools, provider.Tool{Name: t.Name, Description: t.Description, Schema: t.Parameters})
		}
	}
	for i, raw := range q.Input {
		var it responsesInput
		if err := json.Unmarshal(raw, &it); err != nil {
			return req, fmt.Errorf("input %d: %w", i, err)
		}
		req.System, req.Messages = addInput(req.System, req.Messages, it)
	}
	return req, nil
}

// addInput folds one input item into the system prompt and the messages.
func addInput(system string, msgs []provider.Message, it responsesInput) (string, []provider.Message) {
	switch it.Type {
	case "function_call", "custom_tool_call":
		args := it.Arguments
		if it.Type == "custom_tool_call" {
			b, _ := json.Marshal(map[string]string{"input": it.Input})
			args = string(b)
		}
		call := provider.ToolCall{ID: it.CallID, Name: it.Name, Arguments: rawJSON([]byte(args))}
		if n := len(msgs); n > 0 && msgs[n-1].Role == provider.RoleAssistant {
			msgs[n-1].ToolCalls = append(msgs[n-1].ToolCalls, call)
			return system, msgs
		}
		return system, append(msgs, provider.Message{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{call}})
	case "function_call_output", "custom_tool_call_output":
		return system, append(msgs, provider.Message{Role: provider.RoleTool, ToolCallID: it.CallID, Text: partsText(it.Output)})
	case "message", "":
		text := partsText(it.Content)
		switch it.Role {
		case "developer", "system":
			return strings.TrimSpace(system + "\n\n" + text), msgs
		case "assistant":
			return system, append(msgs, provider.Message{Role: provider.RoleAssistant, Text: text})
		default:
			return system, append(msgs, provider.Message{Role: provider.RoleUser, Text: text, Images: partsImages(it.Content)})
		}
	}
	return system, msgs // reasoning and other items have nothing for another model
}

// partsImages decodes the input_image parts of content that hold a base64 data URL, as Codex
// sends a prompt's local images; an image by URL or file id has no bytes here and is named in
// the text instead.
func partsImages(raw json.RawMessage) []provider.Image {
	var parts []struct {
		Type     string `json:"type"`
		ImageURL string `json:"image_url"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []provider.Image
	for _, p := range parts {
		if p.Type != "input_image" {
			continue
		}
		meta, data, ok := strings.Cut(strings.TrimPrefix(p.ImageURL, "data:"), ",")
		mt, b64 := strings.CutSuffix(meta, ";base64")
		if !ok || !b64 || !strings.HasPrefix(p.ImageURL, "data:") {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			continue
		}
		out = append(out, provider.Image{MediaType: mt, Data: b})
	}
	return out
}
