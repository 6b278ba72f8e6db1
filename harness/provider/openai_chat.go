package provider

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
)

// OpenAICompatible streams from a Chat Completions endpoint through the
// official OpenAI SDK: OpenAI itself, Ollama, llama.cpp server, vLLM, LM
// Studio and others that speak the same wire format.
type OpenAICompatible struct {
	name   string
	client openai.Client
}

// NewOpenAICompatible returns a Chat Completions provider named
// "openai-compatible" unless cfg says otherwise. Local servers need no key;
// a placeholder is sent so that the SDK does not look one up elsewhere.
func NewOpenAICompatible(cfg Config) *OpenAICompatible {
	if cfg.APIKey == "" {
		cfg.APIKey = "none"
	}
	return &OpenAICompatible{name: cfg.name("openai-compatible"), client: openai.NewClient(openaiOptions(cfg)...)}
}

// Name returns the provider's name.
func (p *OpenAICompatible) Name() string { return p.name }

// Stream sends req to /chat/completions and streams the answer.
func (p *OpenAICompatible) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	params, err := chatParams(req)
	if err != nil {
		return Response{}, fmt.Errorf("%s: %w", p.name, err)
	}
	ctx, m := withMeter(ctx)
	st := &chatState{acc: newAccumulator(onDelta), model: req.Model} // starts the TTFT clock
	stream := p.client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	for stream.Next() {
		if err := st.handle(stream.Current()); err != nil {
			err.Provider, err.Bytes = p.name, m.n()
			return Response{}, err
		}
	}
	if err := stream.Err(); err != nil {
		return Response{}, classify(ctx, p.name, err, m)
	}
	if st.stop == "" {
		return Response{}, &Error{Provider: p.name, Kind: ErrStreamCut, Bytes: m.n(), Detail: "ended before finish_reason"}
	}
	return st.acc.response(st.model, st.usage, st.stop), nil
}

// chatState folds Chat Completions chunks.
type chatState struct {
	acc   *accumulator
	model string
	usage Usage
	stop  StopReason
}

// handle applies one chunk.
func (s *chatState) handle(c openai.ChatCompletionChunk) *Error {
	s.model = firstNonEmpty(c.Model, s.model)
	if c.JSON.Usage.Valid() && (c.Usage.PromptTokens > 0 || c.Usage.CompletionTokens > 0) {
		s.usage = Usage{Input: c.Usage.PromptTokens, Output: c.Usage.CompletionTokens,
			Cached: c.Usage.PromptTokensDetails.CachedTokens}
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if err := s.delta(ch.Delta); err != nil {
			return err
		}
		if ch.FinishReason != "" {
			s.stop = chatStop(ch.FinishReason)
		}
	}
	return nil
}

// delta applies the text and tool-call pieces of one choice.
func (s *chatState) delta(d openai.ChatCompletionChunkChoiceDelta) *Error {
	s.acc.addText(d.Content)
	for _, tc := range d.ToolCalls {
		if !s.acc.hasCall(tc.Index) {
			if tc.ID == "" || tc.Function.Name == "" {
				return &Error{Kind: ErrMalformedStream, Detail: "tool call fragment before its id and name"}
			}
			s.acc.startCall(tc.Index, tc.ID, tc.Function.Name)
		}
		s.acc.addArgs(tc.Index, tc.Function.Arguments)
	}
	return nil
}

// chatStop normalises a finish_reason.
func chatStop(r string) StopReason {
	switch r {
	case "stop":
		return StopEndTurn
	case "tool_calls", "function_call":
		return StopToolUse
	case "length":
		return StopMaxTokens
	case "content_filter":
		return StopRefusal
	}
	return StopReason(r)
}

// chatParams maps a Request onto Chat Completions parameters.
func chatParams(req Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model:         req.Model,
		Messages:      chatMessages(req),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	if req.MaxOutputTokens > 0 {
		p.MaxCompletionTokens = param.NewOpt(int64(req.MaxOutputTokens))
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
			out = append(out, chatAssistant(m))
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
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}
}
