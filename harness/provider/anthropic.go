package provider

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/param"
)

// defaultAnthropicMaxTokens is sent when neither the request nor the
// catalog gives a limit (the Messages API requires one).
const defaultAnthropicMaxTokens = 8192

// Anthropic streams from Anthropic's Messages API through the official SDK.
type Anthropic struct {
	name    string
	baseURL string
	call    caller
	client  anthropic.Client
}

// NewAnthropic returns a Messages API provider named "anthropic" unless cfg
// says otherwise. The SDK's own retries and environment defaults are off.
func NewAnthropic(cfg Config) *Anthropic {
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(0),
		option.WithHTTPClient(meteredClient(cfg.HTTPClient)),
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	return &Anthropic{name: cfg.name("anthropic"), baseURL: cfg.BaseURL, call: newCaller(cfg.name("anthropic"), cfg), client: anthropic.NewClient(opts...)}
}

// Name returns the provider's name.
func (p *Anthropic) Name() string { return p.name }

// Stream sends req to /v1/messages and streams the answer.
func (p *Anthropic) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	origin := newEndpoint(p.baseURL, "api.anthropic.com", req.Model).origin
	params, err := anthropicParams(req, origin)
	if err != nil {
		return Response{}, fmt.Errorf("%s: %w", p.name, err)
	}
	st := &anthropicState{acc: newAccumulator(onDelta), model: req.Model} // starts the TTFT clock
	send := func(ctx context.Context, raw **http.Response) error {
		return p.client.Post(ctx, "v1/messages", params, raw, option.WithJSONSet("stream", true))
	}
	if err := p.call.stream(ctx, send, st.event, func() bool { return st.done }, "message_stop"); err != nil {
		return Response{}, st.acc.failed(err, st.model, st.usage)
	}
	resp := st.acc.response(st.model, st.usage, st.stop)
	stampOrigin(resp.Reasoning, origin)
	return resp, nil
}

// anthropicParams maps a Request onto Messages API parameters, marking the
// stable prefix (tools, then system) with cache_control when asked. Thinking
// blocks go back only to the endpoint and model (origin) that produced them.
func anthropicParams(req Request, origin string) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{
		Model:     req.Model,
		MaxTokens: int64(maxTokens(req)),
		Messages:  anthropicMessages(req.Messages, messageBreakpoints(req), origin),
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	for _, t := range req.Tools {
		tool, err := anthropicTool(t)
		if err != nil {
			return p, err
		}
		p.Tools = append(p.Tools, tool)
	}
	if req.CachePrefix {
		markStablePrefix(&p)
	}
	if budget := thinkingBudget(req, origin); budget > 0 {
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(int64(budget))
		if p.MaxTokens <= int64(budget) {
			p.MaxTokens = int64(budget + defaultAnthropicMaxTokens)
		}
	}
	return p, nil
}

// minThinkingBudget is the smallest budget the Messages API accepts.
const minThinkingBudget = 1024

// thinkingBudget is the extended-thinking budget to send. A tool loop is one assistant turn,
// which the API wants in one thinking mode, starting with a signed thinking block: without
// interleaved thinking only the turn's first answer has one. When the turn's first answer has
// none (a model switch, or thinking whose text had to be redacted) thinking stays off until
// the next user message, since the API refuses the request otherwise.
func thinkingBudget(req Request, origin string) int {
	if req.ThinkingBudget <= 0 {
		return 0
	}
	first := -1
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != RoleUser; i-- {
		if req.Messages[i].Role == RoleAssistant {
			first = i
		}
	}
	if first >= 0 && !hasThinking(req.Messages[first].Reasoning, origin) {
		return 0
	}
	return max(req.ThinkingBudget, minThinkingBudget)
}

// hasThinking reports whether parts hold a thinking block the API accepts.
func hasThinking(parts []Reasoning, origin string) bool {
	for _, r := range parts {
		if anthropicThinking(r, origin) != nil {
			return true
		}
	}
	return false
}

// anthropicThinking maps a reasoning part back to a thinking or
// redacted_thinking block, unchanged, or nil for parts of other APIs,
// endpoints or models, or without their signature.
func anthropicThinking(r Reasoning, origin string) *anthropic.ContentBlockParamUnion {
	if r.Format != ReasoningAnthropic || !reasoningFrom(r, origin) {
		return nil
	}
	var b anthropic.ContentBlockParamUnion
	switch {
	case r.Type == "thinking" && r.Signature != "":
		b = anthropic.NewThinkingBlock(r.Signature, r.Text)
	case r.Type == "redacted_thinking" && r.Data != "":
		b = anthropic.NewRedactedThinkingBlock(r.Data)
	default:
		return nil
	}
	return &b
}

// maxTokens picks the output cap: the request's, the catalog's, or a default.
func maxTokens(req Request) int {
	if req.MaxOutputTokens > 0 {
		return req.MaxOutputTokens
	}
	if info, ok := Lookup(req.Model); ok && info.MaxOutput > 0 {
		return info.MaxOutput
	}
	return defaultAnthropicMaxTokens
}

// markStablePrefix puts a cache breakpoint after the system prompt (which
// also covers the tools, cached first) or, with no system prompt, after the
// last tool.
func markStablePrefix(p *anthropic.MessageNewParams) {
	cc := anthropic.NewCacheControlEphemeralParam()
	switch {
	case len(p.System) > 0:
		p.System[len(p.System)-1].CacheControl = cc
	case len(p.Tools) > 0:
		if c := p.Tools[len(p.Tools)-1].GetCacheControl(); c != nil {
			*c = cc
		}
	}
}

// anthropicTool maps a tool and its JSON schema.
func anthropicTool(t Tool) (anthropic.ToolUnionParam, error) {
	m, err := schemaMap(t)
	if err != nil {
		return anthropic.ToolUnionParam{}, err
	}
	schema := anthropic.ToolInputSchemaParam{Properties: m["properties"], ExtraFields: map[string]any{}}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				schema.Required = append(schema.Required, s)
			}
		}
	}
	for k, v := range m {
		if k != "properties" && k != "required" && k != "type" {
			schema.ExtraFields[k] = v
		}
	}
	tool := anthropic.ToolUnionParamOfTool(schema, t.Name)
	if t.Description != "" {
		tool.OfTool.Description = param.NewOpt(t.Description)
	}
	return tool, nil
}

// maxBreakpoints is the most cache_control markers the API accepts.
const maxBreakpoints = 4

// messageBreakpoints picks which messages keep their cache breakpoint: the
// latest ones, within what the stable prefix leaves of the API's limit.
func messageBreakpoints(req Request) map[int]bool {
	left := maxBreakpoints
	if req.CachePrefix && (req.System != "" || len(req.Tools) > 0) {
		left--
	}
	keep := map[int]bool{}
	for i := len(req.Messages) - 1; i >= 0 && left > 0; i-- {
		if req.Messages[i].CacheBreakpoint {
			keep[i] = true
			left--
		}
	}
	return keep
}

// anthropicMessages maps the conversation, folding consecutive tool results
// into one user message as the API expects, and marking the chosen cache
// breakpoints.
func anthropicMessages(msgs []Message, breakpoints map[int]bool, origin string) []anthropic.MessageParam {
	var out []anthropic.MessageParam
	for i, m := range msgs {
		blocks := anthropicBlocks(m, origin)
		if len(blocks) == 0 {
			continue
		}
		if breakpoints[i] {
			if c := blocks[len(blocks)-1].GetCacheControl(); c != nil {
				*c = anthropic.NewCacheControlEphemeralParam()
			}
		}
		role := anthropic.MessageParamRoleUser
		if m.Role == RoleAssistant {
			role = anthropic.MessageParamRoleAssistant
		}
		if n := len(out); n > 0 && m.Role == RoleTool && out[n-1].Role == role && isToolResults(out[n-1]) {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			continue
		}
		out = append(out, anthropic.MessageParam{Role: role, Content: blocks})
	}
	return out
}

// anthropicBlocks maps one message to content blocks. The thinking blocks of
// every turn go back unchanged (the API drops those of earlier turns itself
// where the model does not use them, and the prompt's prefix stays the same
// for the cache); a message holding only thinking is left out, since it would
// be empty once the API dropped it.
func anthropicBlocks(m Message, origin string) []anthropic.ContentBlockParamUnion {
	switch m.Role {
	case RoleTool:
		return []anthropic.ContentBlockParamUnion{anthropic.NewToolResultBlock(m.ToolCallID, m.Text, m.IsError)}
	case RoleAssistant:
		var b []anthropic.ContentBlockParamUnion
		if m.Text == "" && len(m.ToolCalls) == 0 {
			return nil
		}
		for _, r := range m.Reasoning {
			if t := anthropicThinking(r, origin); t != nil {
				b = append(b, *t)
			}
		}
		if m.Text != "" {
			b = append(b, anthropic.NewTextBlock(m.Text))
		}
		for _, c := range m.ToolCalls {
			b = append(b, anthropic.NewToolUseBlock(c.ID, json.RawMessage(argsObject(c.Arguments)), c.Name))
		}
		return b
	}
	var b []anthropic.ContentBlockParamUnion
	if m.Text != "" {
		b = append(b, anthropic.NewTextBlock(m.Text))
	}
	for _, im := range m.Images {
		b = append(b, anthropic.NewImageBlockBase64(im.MediaType, base64.StdEncoding.EncodeToString(im.Data)))
	}
	return b
}

// isToolResults reports whether a message holds only tool results.
func isToolResults(m anthropic.MessageParam) bool {
	for _, b := range m.Content {
		if b.OfToolResult == nil {
			return false
		}
	}
	return len(m.Content) > 0
}

// argsObject returns arguments as a JSON object ("{}" if they are not one),
// since tool_use input must be an object.
func argsObject(a json.RawMessage) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(a, &obj) != nil || obj == nil {
		return []byte("{}")
	}
	return a
}
