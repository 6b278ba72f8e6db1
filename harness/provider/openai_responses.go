package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// OpenAI streams from OpenAI's Responses API through the official SDK.
type OpenAI struct {
	name    string
	baseURL string
	call    caller
	client  openai.Client
	// noSummary is set once the API refused reasoning summaries (an
	// organisation not verified for them): later calls ask for none.
	noSummary atomic.Bool
}

// NewOpenAI returns a Responses API provider named "openai" unless cfg says
// otherwise. The SDK's own retries are off; wrap it in Reliable.
func NewOpenAI(cfg Config) *OpenAI {
	return &OpenAI{name: cfg.name("openai"), baseURL: cfg.BaseURL, call: newCaller(cfg.name("openai"), cfg), client: openai.NewClient(openaiOptions(cfg)...)}
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
	resp, err := p.stream(ctx, req, !p.noSummary.Load(), onDelta)
	if refusedSummary(err) {
		p.noSummary.Store(true)
		resp, err = p.stream(ctx, req, false, onDelta)
	}
	return resp, err
}

// stream makes one call, with or without reasoning summaries.
func (p *OpenAI) stream(ctx context.Context, req Request, summary bool, onDelta func(Delta)) (Response, error) {
	origin := newEndpoint(p.baseURL, "api.openai.com", req.Model).origin
	params, err := responsesParams(req, summary, origin)
	if err != nil {
		return Response{}, fmt.Errorf("%s: %w", p.name, err)
	}
	st := &responsesState{acc: newAccumulator(onDelta), model: req.Model} // starts the TTFT clock
	send := func(ctx context.Context, raw **http.Response) error {
		return p.client.Post(ctx, "responses", params, raw, option.WithJSONSet("stream", true))
	}
	if err := p.call.stream(ctx, send, st.event, func() bool { return st.done }, "response.completed"); err != nil {
		return Response{}, st.acc.failed(err, st.model, st.usage)
	}
	resp := st.acc.response(st.model, st.usage, st.stop)
	stampOrigin(resp.Reasoning, origin)
	return resp, nil
}

// refusedSummary reports an HTTP 400 refusing reasoning summaries ("Your
// organization must be verified to generate reasoning summaries").
func refusedSummary(err error) bool {
	var pe *Error
	return errors.As(err, &pe) && pe.Status == http.StatusBadRequest &&
		strings.Contains(strings.ToLower(pe.Detail), "summar")
}

// responsesParams maps a Request onto the Responses API's parameters. A
// reasoning model gets its effort, summaries when allowed, and its
// reasoning back as encrypted content (the conversation is not stored),
// only to the endpoint and model (origin) that produced it. A model is known
// to reason by its id, by the effort its registration asks for, or, for a
// deployment named otherwise (Azure), by a reasoning item it already sent.
func responsesParams(req Request, summary bool, origin string) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{
		Model: req.Model,
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responsesInput(req.Messages, origin)},
		Store: param.NewOpt(false),
	}
	if OpenAIReasoningModel(req.Model) || req.ReasoningEffort != "" || reasoned(req.Messages, origin) {
		p.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
		p.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffort(req.ReasoningEffort)}
		if summary {
			p.Reasoning.Summary = shared.ReasoningSummaryAuto
		}
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

// responsesInput maps the conversation onto input items. The reasoning items
// of every turn go back (the API ignores those it does not need, and the
// prompt's prefix stays the same for the cache), each before the message or
// calls it led to: a reasoning item followed by nothing is refused, so a
// message holding only reasoning is left out.
func responsesInput(msgs []Message, origin string) responses.ResponseInputParam {
	var in responses.ResponseInputParam
	for _, m := range msgs {
		switch m.Role {
		case RoleUser:
			in = append(in, responsesUser(m))
		case RoleAssistant:
			if m.Text != "" || len(m.ToolCalls) > 0 {
				in = append(in, responsesReasoning(m.Reasoning, origin)...)
			}
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

// responsesReasoning maps reasoning items back as input items, with their
// encrypted content; items without it cannot be used again (nothing is
// stored) and are left out, as are parts from other APIs, endpoints or models.
func responsesReasoning(parts []Reasoning, origin string) []responses.ResponseInputItemUnionParam {
	var out []responses.ResponseInputItemUnionParam
	for _, r := range parts {
		if r.Format != ReasoningResponses || r.Data == "" || r.ID == "" || !reasoningFrom(r, origin) {
			continue
		}
		summary := []responses.ResponseReasoningItemSummaryParam{}
		for _, s := range r.Summary {
			summary = append(summary, responses.ResponseReasoningItemSummaryParam{Text: s})
		}
		item := responses.ResponseInputItemParamOfReasoning(r.ID, summary)
		item.OfReasoning.EncryptedContent = param.NewOpt(r.Data)
		out = append(out, item)
	}
	return out
}

// reasoned reports whether the conversation holds a Responses reasoning item from origin:
// the model reasons, whatever its name.
func reasoned(msgs []Message, origin string) bool {
	for _, m := range msgs {
		for _, r := range m.Reasoning {
			if r.Format == ReasoningResponses && r.Origin != "" && r.Origin == origin {
				return true
			}
		}
	}
	return false
}

// responsesUser maps a user message: its text, then its images as input_image parts holding
// data URLs.
func responsesUser(m Message) responses.ResponseInputItemUnionParam {
	if len(m.Images) == 0 {
		return responses.ResponseInputItemParamOfMessage(m.Text, responses.EasyInputMessageRoleUser)
	}
	parts := responses.ResponseInputMessageContentListParam{responses.ResponseInputContentParamOfInputText(m.Text)}
	for _, im := range m.Images {
		part := responses.ResponseInputContentParamOfInputImage(responses.ResponseInputImageDetailAuto)
		part.OfInputImage.ImageURL = param.NewOpt(im.DataURL())
		parts = append(parts, part)
	}
	return responses.ResponseInputItemParamOfMessage(parts, responses.EasyInputMessageRoleUser)
}
