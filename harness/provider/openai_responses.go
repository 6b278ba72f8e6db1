package provider

import (
	"context"
	"fmt"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
)

// OpenAI streams from OpenAI's Responses API through the official SDK.
type OpenAI struct {
	name   string
	call   caller
	client openai.Client
}

// NewOpenAI returns a Responses API provider named "openai" unless cfg says
// otherwise. The SDK's own retries are off; wrap it in Reliable.
func NewOpenAI(cfg Config) *OpenAI {
	return &OpenAI{name: cfg.name("openai"), call: newCaller(cfg.name("openai"), cfg), client: openai.NewClient(openaiOptions(cfg)...)}
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
	st := &responsesState{acc: newAccumulator(onDelta), model: req.Model} // starts the TTFT clock
	send := func(ctx context.Context, raw **http.Response) error {
		return p.client.Post(ctx, "responses", params, raw, option.WithJSONSet("stream", true))
	}
	if err := p.call.stream(ctx, send, st.event, func() bool { return st.done }, "response.completed"); err != nil {
		return Response{}, err
	}
	return st.acc.response(st.model, st.usage, st.stop), nil
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
