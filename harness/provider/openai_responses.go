package provider

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
)

// OpenAI streams from OpenAI's Responses API through the official SDK.
type OpenAI struct {
	name   string
	client openai.Client
}

// NewOpenAI returns a Responses API provider named "openai" unless cfg says
// otherwise. The SDK's own retries are off; wrap it in Reliable.
func NewOpenAI(cfg Config) *OpenAI {
	return &OpenAI{name: cfg.name("openai"), client: openai.NewClient(openaiOptions(cfg)...)}
}

// openaiOptions builds the SDK options shared by both OpenAI providers.
func openaiOptions(cfg Config) []option.RequestOption {
	opts := []option.RequestOption{
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(0),
		option.WithHTTPClient(meteredClient(cfg.HTTPClient)),
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	return opts
}

// Name returns the provider's name.
func (p *OpenAI) Name() string { return p.name }

// Stream sends req to /responses and streams the answer.
func (p *OpenAI) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	params, err := responsesParams(req)
	if err != nil {
		return Response{}, fmt.Errorf("%s: %w", p.name, err)
	}
	ctx, m := withMeter(ctx)
	st := &responsesState{acc: newAccumulator(onDelta), model: req.Model} // starts the TTFT clock
	stream := p.client.Responses.NewStreaming(ctx, params)
	defer stream.Close()
	for stream.Next() {
		if err := st.handle(stream.Current()); err != nil {
			return Response{}, p.fail(err, m)
		}
		if st.done {
			return st.response(), nil
		}
	}
	if err := stream.Err(); err != nil {
		return Response{}, classify(ctx, p.name, err, m)
	}
	return Response{}, &Error{Provider: p.name, Kind: ErrStreamCut, Bytes: m.n(), Detail: "ended before response.completed"}
}

// fail fills in the provider's name and byte count on an in-stream error.
func (p *OpenAI) fail(e *Error, m *meter) error {
	e.Provider, e.Bytes = p.name, m.n()
	return e
}

// responsesState folds Responses stream events.
type responsesState struct {
	acc   *accumulator
	model string
	usage Usage
	stop  StopReason
	done  bool
}

// handle applies one event.
func (s *responsesState) handle(ev responses.ResponseStreamEventUnion) *Error {
	switch ev.Type {
	case "response.created", "response.in_progress":
		s.model = firstNonEmpty(string(ev.Response.Model), s.model)
	case "response.output_item.added":
		if ev.Item.Type == "function_call" {
			s.acc.startCall(ev.OutputIndex, ev.Item.CallID, ev.Item.Name)
		}
	case "response.output_text.delta", "response.refusal.delta":
		s.acc.addText(ev.Delta)
	case "response.function_call_arguments.delta":
		if !s.acc.addArgs(ev.OutputIndex, ev.Delta) {
			return &Error{Kind: ErrMalformedStream, Detail: "arguments for an unknown function call"}
		}
	case "response.completed", "response.incomplete":
		s.finish(ev.Response)
	case "response.failed":
		return &Error{Kind: ErrServer, Detail: trim(firstNonEmpty(ev.Response.Error.Message, "response failed"))}
	case "error":
		return &Error{Kind: ErrServer, Detail: trim(firstNonEmpty(ev.Message, ev.Code, "error event"))}
	}
	return nil
}

// finish records the final response's usage and status.
func (s *responsesState) finish(r responses.Response) {
	s.done = true
	s.model = firstNonEmpty(string(r.Model), s.model)
	u := r.Usage
	s.usage = Usage{Input: u.InputTokens, Output: u.OutputTokens, Cached: u.InputTokensDetails.CachedTokens}
	s.stop = StopEndTurn
	if r.Status == "incomplete" {
		s.stop = StopReason(firstNonEmpty(r.IncompleteDetails.Reason, "incomplete"))
		if s.stop == "max_output_tokens" {
			s.stop = StopMaxTokens
		}
	}
}

// response returns the completed response.
func (s *responsesState) response() Response {
	return s.acc.response(s.model, s.usage, s.stop)
}

// responsesParams maps a Request onto the Responses API's parameters.
func responsesParams(req Request) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{
		Model: req.Model,
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responsesInput(req.Messages)},
		Store: param.NewOpt(false),
	}
	if req.System != "" {
		p.Instructions = param.NewOpt(req.System)
	}
	if req.MaxOutputTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(req.MaxOutputTokens))
	}
	if req.CacheKey != "" {
		p.PromptCacheKey = param.NewOpt(req.CacheKey)
	}
	for _, t := range req.Tools {
		schema, err := schemaMap(t)
		if err != nil {
			return p, err
		}
		tool := responses.ToolParamOfFunction(t.Name, schema, false)
		if t.Description != "" {
			tool.OfFunction.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, tool)
	}
	return p, nil
}

// responsesInput maps the conversation onto input items.
func responsesInput(msgs []Message) responses.ResponseInputParam {
	var in responses.ResponseInputParam
	for _, m := range msgs {
		switch m.Role {
		case RoleUser:
			in = append(in, responses.ResponseInputItemParamOfMessage(m.Text, responses.EasyInputMessageRoleUser))
		case RoleAssistant:
			if m.Text != "" {
				in = append(in, responses.ResponseInputItemParamOfMessage(m.Text, responses.EasyInputMessageRoleAssistant))
			}
			for _, c := range m.ToolCalls {
				in = append(in, responses.ResponseInputItemParamOfFunctionCall(string(argsJSON(string(c.Arguments))), c.ID, c.Name))
			}
		case RoleTool:
			item := responses.ResponseInputItemParamOfFunctionCallOutput(toolResultText(m))
			item.OfFunctionCallOutput.CallID = param.NewOpt(m.ToolCallID)
			in = append(in, item)
		}
	}
	return in
}
