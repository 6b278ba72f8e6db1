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
	name   string
	call   caller
	client openai.Client
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
	return &OpenAICompatible{name: cfg.name("openai-compatible"), call: newCaller(cfg.name("openai-compatible"), cfg), client: openai.NewClient(openaiOptions(cfg)...)}
}

// Name returns the provider's name.
func (p *OpenAICompatible) Name() string { return p.name }

// Stream sends req to /chat/completions and streams the answer.
func (p *OpenAICompatible) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	params, err := chatParams(req)
	if err != nil {
		return Response{}, fmt.Errorf("%s: %w", p.name, err)
	}
	st := &chatState{acc: newAccumulator(onDelta), model: req.Model} // starts the TTFT clock
	send := func(ctx context.Context, raw **http.Response) error {
		return p.client.Post(ctx, "chat/completions", params, raw, option.WithJSONSet("stream", true))
	}
	if err := p.call.stream(ctx, send, st.event, func() bool { return st.stop != "" }, "finish_reason"); err != nil {
		return Response{}, err
	}
	return st.acc.response(st.model, st.usage, st.stop), nil
}

// chatParams maps a Request onto Chat Completions parameters.
func chatParams(req Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model:         req.Model,
		Messages:      chatMessages(req),
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
func chatMessages(req Request) []openai.ChatCompletionMessageParamUnion {
	var out []openai.ChatCompletionMessageParamUnion
	if req.System != "" {
		out = append(out, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			out = append(out, openai.UserMessage(m.Text))
		case RoleAssistant:
			if m.Text != "" || len(m.ToolCalls) > 0 {
				out = append(out, chatAssistant(m))
			}
		case RoleTool:
			out = append(out, openai.ToolMessage(toolResultText(m), m.ToolCallID))
		}
	}
	return out
}

// chatAssistant maps an assistant message with its tool calls.
func chatAssistant(m Message) openai.ChatCompletionMessageParamUnion {
	a := openai.ChatCompletionAssistantMessageParam{}
	if m.Text != "" {
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
	if extra := chatReasoningFields(m); len(extra) > 0 {
		a.SetExtraFields(extra)
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}
}

// chatReasoningFields are the reasoning fields an assistant message carries
// back: reasoning_details as OpenRouter and Vercel sent them (Gemini's
// thought signatures among them), and reasoning_content on a message with
// tool calls, which DeepSeek requires in a tool loop.
func chatReasoningFields(m Message) map[string]any {
	var details []map[string]any
	var content strings.Builder
	for _, r := range m.Reasoning {
		switch r.Format {
		case ReasoningDetails:
			details = append(details, detailObject(r))
		case ReasoningContent:
			content.WriteString(r.Text)
		}
	}
	extra := map[string]any{}
	if len(details) > 0 {
		extra["reasoning_details"] = details
	}
	if content.Len() > 0 && len(m.ToolCalls) > 0 {
		extra["reasoning_content"] = content.String()
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
