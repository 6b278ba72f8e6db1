package extexec

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"exo/harness/provider"
)

// anthropicRequest is a Messages request as an agent sends it, decoded to be served by another
// kind of model.
type anthropicRequest struct {
	Model     string          `json:"model"`
	System    json.RawMessage `json:"system"`
	Messages  []anthropicMsg  `json:"messages"`
	Tools     []anthropicTool `json:"tools"`
	MaxTokens int             `json:"max_tokens"`
	Stream    bool            `json:"stream"`
}

type anthropicMsg struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// anthropicBlock is a content block of a request message.
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    *imageSource    `json:"source"`
}

// imageSource is an image block's source: exo's executors send base64 (media_type, data).
type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// blocksOf decodes content: a string or an array of blocks.
func blocksOf(raw json.RawMessage) []anthropicBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []anthropicBlock{{Type: "text", Text: s}}
	}
	var bs []anthropicBlock
	_ = json.Unmarshal(raw, &bs)
	return bs
}

// textOf joins the text blocks of content (a string or blocks); other kinds are named.
func textOf(raw json.RawMessage) string {
	var parts []string
	for _, b := range blocksOf(raw) {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "image", "document":
			parts = append(parts, "["+b.Type+" omitted: this model is served through exo's "+b.Type+"-less bridge]")
		}
	}
	return strings.Join(parts, "\n")
}

// toProvider maps the request onto exo's provider request for model.
func (a *anthropicRequest) toProvider(model string, maxOut int) (provider.Request, error) {
	req := provider.Request{Model: model, System: textOf(a.System), MaxOutputTokens: a.MaxTokens}
	if maxOut > 0 && (req.MaxOutputTokens == 0 || req.MaxOutputTokens > maxOut) {
		req.MaxOutputTokens = maxOut
	}
	for _, t := range a.Tools {
		if t.Name == "" || len(t.InputSchema) == 0 {
			continue // server tools (web search…) have no schema to offer another model
		}
		req.Tools = append(req.Tools, provider.Tool{Name: t.Name, Description: t.Description, Schema: t.InputSchema})
	}
	for i, m := range a.Messages {
		if m.Role == "system" { // mid-conversation instructions: exo's providers take one system prompt
			req.System = strings.TrimSpace(req.System + "\n\n" + textOf(m.Content))
			continue
		}
		msgs, err := messageToProvider(m)
		if err != nil {
			return req, fmt.Errorf("message %d: %w", i, err)
		}
		req.Messages = append(req.Messages, msgs...)
	}
	return req, nil
}

// messageToProvider maps one Messages message: a user message's tool results become tool
// messages, its text one user message; an assistant message its text and tool calls.
func messageToProvider(m anthropicMsg) ([]provider.Message, error) {
	switch m.Role {
	case "assistant":
		out := provider.Message{Role: provider.RoleAssistant}
		var text []string
		for _, b := range blocksOf(m.Content) {
			switch b.Type {
			case "text":
				text = append(text, b.Text)
			case "tool_use":
				out.ToolCalls = append(out.ToolCalls, provider.ToolCall{ID: b.ID, Name: b.Name, Arguments: rawJSON(b.Input)})
			}
		}
		out.Text = strings.Join(text, "\n")
		return []provider.Message{out}, nil
	case "user":
		var out []provider.Message
		var text []string
		var ims []provider.Image
		for _, b := range blocksOf(m.Content) {
			switch b.Type {
			case "tool_result":
				out = append(out, provider.Message{Role: provider.RoleTool, ToolCallID: b.ToolUseID, Text: textOf(b.Content), IsError: b.IsError})
			case "text":
				text = append(text, b.Text)
			case "image":
				im, err := imageOf(b)
				if err != nil {
					return nil, err
				}
				ims = append(ims, im)
			}
		}
		if len(text) > 0 || len(ims) > 0 {
			out = append(out, provider.Message{Role: provider.RoleUser, Text: strings.Join(text, "\n"), Images: ims})
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown role %q", m.Role)
}

// offered maps a tool name a model used to the name the agent offered: a model that knows
// exo's tools by their own names (bash) calls what the agent lists as mcp__exo__bash.
func (a *anthropicRequest) offered(name string) string {
	have := false
	for _, t := range a.Tools {
		if t.Name == name {
			return name
		}
		have = have || strings.HasSuffix(t.Name, "__"+name)
	}
	if have {
		for _, t := range a.Tools {
			if strings.HasPrefix(t.Name, "mcp__") && strings.HasSuffix(t.Name, "__"+name) {
				return t.Name
			}
		}
	}
	return name
}

// imageOf decodes a user message's base64 image block for exo's provider (an image given by
// URL or file id is refused: the bridge does not fetch).
func imageOf(b anthropicBlock) (provider.Image, error) {
	if b.Source == nil || b.Source.Type != "base64" {
		return provider.Image{}, errors.New("an image block without base64 data: exo's bridge takes only base64 images")
	}
	data, err := base64.StdEncoding.DecodeString(b.Source.Data)
	if err != nil {
		return provider.Image{}, fmt.Errorf("an image block's data: %w", err)
	}
	return provider.Image{MediaType: b.Source.MediaType, Data: data}, nil
}
