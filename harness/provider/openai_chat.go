package provider

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
)

// OpenAICompatible streams from a Chat Completions endpoint through the
// official OpenAI SDK: OpenAI itself, Ollama, llama.cpp server, vLLM, LM
// Studio and others that speak the same wire format.
type OpenAICompatible struct {
	name    string
	baseURL string
	call    caller
	client  openai.Client
}

// NewOpenAICompatible returns a Chat Completions provider named
// "openai-compatible" unless cfg says otherwise. A base URL without a path
// ("http://127.0.0.1:11434") gets "/v1", where Ollama, llama.cpp server,
// vLLM and LM Studio serve the API. Local servers need no key; a
// placeholder is sent so that the SDK does not look one up elsewhere.
func NewOpenAICompatible(cfg Config) *OpenAICompatible {
	if cfg.APIKey == "" {
		cfg.APIKey = "none"
	}
	if u, err := url.Parse(cfg.BaseURL); err == nil && u.Host != "" && (u.Path == "" || u.Path == "/") {
		cfg.BaseURL = strings.TrimSuffix(cfg.BaseURL, "/") + "/v1"
	}
	return &OpenAICompatible{name: cfg.name("openai-compatible"), baseURL: cfg.BaseURL,
		call: newCaller(cfg.name("openai-compatible"), cfg), client: openai.NewClient(openaiOptions(cfg)...)}
}

// Name returns the provider's name.
func (p *OpenAICompatible) Name() string { return p.name }

// Stream sends req to /chat/completions and streams the answer.
func (p *OpenAICompatible) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	ep := newEndpoint(p.baseURL, "", req.Model)
	params, err := chatParams(req, ep)
	if err != nil {
		return Response{}, fmt.Errorf("%s: %w", p.name, err)
	}
	st := &chatState{acc: newAccumulator(onDelta), model: req.Model, outside: ep.reasoningOutsideCompletion()} // starts the TTFT clock
	send := func(ctx context.Context, raw **http.Response) error {
		return p.client.Post(ctx, "chat/completions", params, raw, option.WithJSONSet("stream", true))
	}
	if err := p.call.stream(ctx, send, st.event, func() bool { return st.stop != "" }, "finish_reason"); err != nil {
		return Response{}, st.acc.failed(err, st.model, st.usage)
	}
	resp := st.acc.response(st.model, st.usage, st.stop)
	stampOrigin(resp.Reasoning, ep.origin)
	return resp, nil
}

// chatParams maps a Request onto Chat Completions parameters for the service at ep.
func chatParams(req Request, ep endpoint) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model:         req.Model,
		Messages:      chatMessages(req, ep),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	switch {
	case req.MaxOutputTokens <= 0:
	case usesMaxCompletionTokens(req.Model):
		p.MaxCompletionTokens = param.NewOpt(int64(req.MaxOutputTokens)) // OpenAI refuses max_tokens for these
	default:
		p.MaxTokens = param.NewOpt(int64(req.MaxOutputTokens)) // max_completion_tokens is unknown to many local servers
	}
	if req.ReasoningEffort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(req.ReasoningEffort)
	}
	if req.CacheKey != "" {
		p.PromptCacheKey = param.NewOpt(req.CacheKey)
	}
	for _, t := range req.Tools {
		schema, err := schemaMap(t)
		if err != nil {
			return p, err
		}
		def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			def.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(def))
	}
	return p, nil
}

// chatMessages maps the system prompt and conversation onto messages.
func chatMessages(req Request, ep endpoint) []openai.ChatCompletionMessageParamUnion {
	var out []openai.ChatCompletionMessageParamUnion
	if req.System != "" {
		out = append(out, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			out = append(out, chatUser(m))
		case RoleAssistant:
			if a, ok := chatAssistant(m, ep); ok {
				out = append(out, a)
			}
		case RoleTool:
			out = append(out, openai.ToolMessage(toolResultText(m), m.ToolCallID))
		}
	}
	return out
}

// chatAssistant maps an assistant message with its tool calls and reasoning; ok is false for
// a message with nothing to send. A message holding only reasoning is kept (with empty
// content): DeepSeek wants the reasoning of every step of a tool-using turn.
func chatAssistant(m Message, ep endpoint) (openai.ChatCompletionMessageParamUnion, bool) {
	a := openai.ChatCompletionAssistantMessageParam{}
	extra := chatReasoningFields(m, ep)
	if m.Text == "" && len(m.ToolCalls) == 0 && len(extra) == 0 {
		return openai.ChatCompletionMessageParamUnion{}, false
	}
	if m.Text != "" || len(m.ToolCalls) == 0 {
		a.Content.OfString = param.NewOpt(m.Text)
	}
	for _, c := range m.ToolCalls {
		a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID: c.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
					Name: c.Name, Arguments: string(argsJSON(string(c.Arguments))),
				},
			},
		})
	}
	if len(extra) > 0 {
		a.SetExtraFields(extra)
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}, true
}

// chatReasoningFields are the reasoning fields an assistant message carries back, each in the
// field it arrived in and only to the endpoint and model that produced it: reasoning_details
// as OpenRouter and Vercel sent them (Gemini's thought signatures among them; a redacted entry
// is left out, its signature gone), reasoning_content (DeepSeek, Kimi, Z.ai, xAI, llama.cpp)
// and reasoning (vLLM, Ollama, Groq). DeepSeek wants reasoning_content on every assistant
// message with tool calls, in every later request; one without (another model's, or thinking
// off) gets it empty.
func chatReasoningFields(m Message, ep endpoint) map[string]any {
	var details []map[string]any
	var content, plain strings.Builder
	for _, r := range m.Reasoning {
		if !reasoningFrom(r, ep.origin) {
			continue
		}
		switch r.Format {
		case ReasoningDetails:
			if !r.Redacted {
				details = append(details, detailObject(r))
			}
		case ReasoningContent:
			content.WriteString(r.Text)
		case ReasoningPlain:
			plain.WriteString(r.Text)
		}
	}
	extra := map[string]any{}
	if len(details) > 0 {
		extra["reasoning_details"] = details
	}
	if content.Len() > 0 || (ep.deepSeek() && len(m.ToolCalls) > 0) {
		extra["reasoning_content"] = content.String()
	}
	if plain.Len() > 0 {
		extra["reasoning"] = plain.String()
	}
	return extra
}

// detailObject rebuilds a reasoning_details entry with the fields it came with.
func detailObject(r Reasoning) map[string]any {
	d := map[string]any{"type": r.Type, "index": r.Index}
	set := func(k, v string) {
		if v != "" {
			d[k] = v
		}
	}
	set("format", r.DetailFormat)
	set("id", r.ID)
	set("text", r.Text)
	set("signature", r.Signature)
	set("data", r.Data)
	if len(r.Summary) > 0 {
		d["summary"] = strings.Join(r.Summary, "")
	}
	return d
}

// chatUser maps a user message: its text, then its images as image_url parts holding data URLs.
func chatUser(m Message) openai.ChatCompletionMessageParamUnion {
	if len(m.Images) == 0 {
		return openai.UserMessage(m.Text)
	}
	parts := []openai.ChatCompletionContentPartUnionParam{openai.TextContentPart(m.Text)}
	for _, im := range m.Images {
		parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: im.DataURL()}))
	}
	return openai.UserMessage(parts)
}
