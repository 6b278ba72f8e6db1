package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

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

// Stream sends req to /chat/completions and streams the answer. The
// request goes through the SDK (parameters, auth, HTTP errors); the SSE body
// is decoded here into a small struct, which costs a few microseconds per
// delta instead of the SDK's reflective decoder's fifteen.
func (p *OpenAICompatible) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	params, err := chatParams(req)
	if err != nil {
		return Response{}, fmt.Errorf("%s: %w", p.name, err)
	}
	ctx, m := withMeter(ctx)
	st := &chatState{acc: newAccumulator(onDelta), model: req.Model} // starts the TTFT clock
	var raw *http.Response
	err = p.client.Post(ctx, "chat/completions", params, &raw, option.WithJSONSet("stream", true))
	if err != nil {
		return Response{}, classify(ctx, p.name, err, m)
	}
	defer raw.Body.Close()
	if err := st.read(newSSEReader(raw.Body)); err != nil {
		if err.Err != nil && err.Kind == ErrStreamCut {
			return Response{}, classify(ctx, p.name, err.Err, m)
		}
		err.Provider, err.Bytes = p.name, m.n()
		return Response{}, err
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

// chatChunk is the part of a chat.completion.chunk that exo reads.
type chatChunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Index        int64     `json:"index"`
		FinishReason string    `json:"finish_reason"`
		Delta        chatDelta `json:"delta"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int64 `json:"prompt_tokens"`
		CompletionTokens    int64 `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
	} `json:"error"`
}

// chatDelta is a choice's new text and tool-call fragments.
type chatDelta struct {
	Content   string `json:"content"`
	Refusal   string `json:"refusal"`
	ToolCalls []struct {
		Index    int64  `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// read consumes the stream until [DONE] or its end.
func (s *chatState) read(r *sseReader) *Error {
	for r.Next() {
		data := r.Data()
		if bytes.HasPrefix(data, []byte("[DONE]")) {
			return s.finished()
		}
		var c chatChunk
		if err := json.Unmarshal(data, &c); err != nil {
			return &Error{Kind: ErrMalformedStream, Detail: trim(err.Error()), Err: err}
		}
		if err := s.handle(&c); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return &Error{Kind: ErrStreamCut, Err: err}
	}
	return s.finished()
}

// finished reports a stream that ended before a finish_reason.
func (s *chatState) finished() *Error {
	if s.stop == "" {
		return &Error{Kind: ErrStreamCut, Detail: "ended before finish_reason"}
	}
	return nil
}

// handle applies one chunk.
func (s *chatState) handle(c *chatChunk) *Error {
	if c.Error != nil {
		return &Error{Kind: ErrServer, Detail: trim(firstNonEmpty(c.Error.Message, fmt.Sprint(c.Error.Code)))}
	}
	s.model = firstNonEmpty(c.Model, s.model)
	if u := c.Usage; u != nil && (u.PromptTokens > 0 || u.CompletionTokens > 0) {
		s.usage = Usage{Input: u.PromptTokens, Output: u.CompletionTokens, Cached: u.PromptTokensDetails.CachedTokens}
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue
		}
		if err := s.delta(&ch.Delta); err != nil {
			return err
		}
		if ch.FinishReason != "" {
			s.stop = chatStop(ch.FinishReason)
		}
	}
	return nil
}

// delta applies the text and tool-call pieces of one choice.
func (s *chatState) delta(d *chatDelta) *Error {
	s.acc.addText(d.Content)
	s.acc.addText(d.Refusal)
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
