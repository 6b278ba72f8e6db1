package provider

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// DefaultGeminiURL is the Gemini API's own address, used when a model is registered without a
// base URL.
const DefaultGeminiURL = "https://generativelanguage.googleapis.com"

// geminiHost is the Gemini API's host, part of the origin of the reasoning it returns.
const geminiHost = "generativelanguage.googleapis.com"

// Gemini streams from the Gemini API (models/{model}:streamGenerateContent?alt=sse). Requests
// are built from the official SDK's wire shapes (google.golang.org/genai), mirrored in
// gemini_wire.go and held equal to the SDK's encoding by a test; the event stream is read by
// this package's decoder, which the benchmarks show to be faster than the SDK's.
type Gemini struct {
	name    string
	base    string
	baseURL string
	key     string
	call    caller
	client  *http.Client
}

// NewGemini returns a Gemini API provider named "gemini" unless cfg says otherwise. The key
// goes in the x-goog-api-key header.
func NewGemini(cfg Config) *Gemini {
	return &Gemini{name: cfg.name(KindGemini), base: geminiBase(cfg.BaseURL), baseURL: cfg.BaseURL, key: cfg.APIKey,
		call: newCaller(cfg.name(KindGemini), cfg), client: meteredClient(cfg.HTTPClient)}
}

// geminiBase is the versioned API root under base: base itself when its path names an API
// version (".../v1beta"), else base + "/v1beta".
func geminiBase(base string) string {
	base = strings.TrimSuffix(firstNonEmpty(base, DefaultGeminiURL), "/")
	if u, err := url.Parse(base); err == nil {
		last := u.Path[strings.LastIndexByte(u.Path, '/')+1:]
		if strings.HasPrefix(last, "v1") {
			return base
		}
	}
	return base + "/v1beta"
}

// Name returns the provider's name.
func (p *Gemini) Name() string { return p.name }

// Stream sends req to streamGenerateContent and streams the answer.
func (p *Gemini) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	origin := newEndpoint(p.baseURL, geminiHost, req.Model).origin
	body, err := geminiBody(geminiParams(req, origin))
	if err != nil {
		return Response{}, fmt.Errorf("%s: encode the request: %w", p.name, err)
	}
	st := newGeminiState(onDelta, req.Model)
	endpoint := p.base + "/models/" + url.PathEscape(strings.TrimPrefix(req.Model, "models/")) + ":streamGenerateContent?alt=sse"
	send := func(ctx context.Context, raw **http.Response) error {
		hr, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
		if err != nil {
			return err
		}
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("x-goog-api-key", p.key)
		res, err := p.client.Do(hr)
		if err != nil {
			return err
		}
		if res.StatusCode >= 400 {
			res.Body.Close()
			return fmt.Errorf("HTTP %d", res.StatusCode) // the transport kept the answer for classify
		}
		*raw = res
		return nil
	}
	if err := p.call.stream(ctx, send, st.event, st.complete, "a finishReason"); err != nil {
		return Response{}, st.acc.failed(err, st.model, st.usage)
	}
	if e := st.ending(); e != nil {
		e.Provider = p.name
		return Response{}, st.acc.failed(e, st.model, st.usage)
	}
	resp := st.response()
	stampOrigin(resp.Reasoning, origin)
	return resp, nil
}

// geminiRequest is the body of generateContent and streamGenerateContent, made of the SDK's
// wire shapes (gemini_wire.go).
type geminiRequest struct {
	Contents          []*gContent        `json:"contents"`
	SystemInstruction *gContent          `json:"systemInstruction,omitempty"`
	Tools             []*gTool           `json:"tools,omitempty"`
	ToolConfig        *gToolConfig       `json:"toolConfig,omitempty"`
	GenerationConfig  *gGenerationConfig `json:"generationConfig,omitempty"`
}

// geminiParams maps a Request onto the Gemini API's request body. Thought signatures go back
// only to the endpoint and model (origin) that produced them; a function call of the current
// turn left without one gets the dummy (see signCurrentTurn).
func geminiParams(req Request, origin string) geminiRequest {
	out := geminiRequest{Contents: geminiContents(req.Messages, origin)}
	signCurrentTurn(out.Contents)
	if req.System != "" {
		out.SystemInstruction = &gContent{Role: "user", Parts: []*gPart{{Text: req.System}}}
	}
	if len(req.Tools) > 0 {
		decls := make([]*gFunctionDeclaration, 0, len(req.Tools))
		for _, t := range req.Tools {
			schema := t.Schema
			if len(schema) == 0 {
				schema = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			decls = append(decls, &gFunctionDeclaration{Name: t.Name, Description: t.Description, ParametersJSONSchema: schema})
		}
		out.Tools = []*gTool{{FunctionDeclarations: decls}}
		out.ToolConfig = &gToolConfig{FunctionCallingConfig: &gFunctionCallingConfig{Mode: gModeAuto}}
	}
	gc := &gGenerationConfig{ThinkingConfig: geminiThinking(req)}
	if req.MaxOutputTokens > 0 {
		gc.MaxOutputTokens = int32(min(req.MaxOutputTokens, 1<<30))
	}
	if gc.ThinkingConfig != nil || gc.MaxOutputTokens > 0 {
		out.GenerationConfig = gc
	}
	return out
}

// geminiThinking asks thinking models for their thought summaries: Gemini 3 models with the
// request's effort as a thinking level, Gemini 2.5 models with its thinking budget. Older
// models refuse a thinking config, so they get none unless a budget is asked for.
func geminiThinking(req Request) *gThinkingConfig {
	m := bareID(req.Model)
	switch {
	case strings.HasPrefix(m, "gemini-3"):
		tc := &gThinkingConfig{IncludeThoughts: true}
		switch strings.ToLower(req.ReasoningEffort) {
		case "minimal", "low":
			tc.ThinkingLevel = gThinkingLow
		case "medium", "high", "xhigh":
			tc.ThinkingLevel = gThinkingHigh
		}
		return tc
	case strings.HasPrefix(m, "gemini-2.5") || req.ThinkingBudget > 0:
		tc := &gThinkingConfig{IncludeThoughts: true}
		if req.ThinkingBudget > 0 {
			b := int32(min(req.ThinkingBudget, 1<<20))
			tc.ThinkingBudget = &b
		}
		return tc
	}
	return nil
}

// geminiCallPrefix marks the call ids exo made up for calls the API sent without one (Gemini
// 2.5 models): they are not sent back.
const geminiCallPrefix = "exo-gemini-"

// geminiContents maps the conversation, folding consecutive tool results into one user
// content as the API expects (one function response per call of the step).
func geminiContents(msgs []Message, origin string) []*gContent {
	names := map[string]string{}
	var out []*gContent
	for _, m := range msgs {
		switch m.Role {
		case RoleAssistant:
			for _, c := range m.ToolCalls {
				names[c.ID] = c.Name
			}
			if parts := geminiModelParts(m, origin); len(parts) > 0 {
				out = append(out, &gContent{Role: "model", Parts: parts})
			}
		case RoleTool:
			part := &gPart{FunctionResponse: geminiFunctionResponse(m, names[m.ToolCallID])}
			if n := len(out); n > 0 && out[n-1].Role == "user" && out[n-1].Parts[0].FunctionResponse != nil {
				out[n-1].Parts = append(out[n-1].Parts, part)
				continue
			}
			out = append(out, &gContent{Role: "user", Parts: []*gPart{part}})
		default:
			if m.Text != "" {
				out = append(out, &gContent{Role: "user", Parts: []*gPart{{Text: m.Text}}})
			}
		}
	}
	return out
}

// geminiFunctionResponse is a tool result: {"result": text}, or {"error": text} for a failure.
func geminiFunctionResponse(m Message, name string) *gFunctionResponse {
	key := "result"
	if m.IsError {
		key = "error"
	}
	fr := &gFunctionResponse{Name: firstNonEmpty(name, "unknown"), Response: map[string]any{key: m.Text}}
	if !strings.HasPrefix(m.ToolCallID, geminiCallPrefix) {
		fr.ID = m.ToolCallID
	}
	return fr
}

// geminiModelParts rebuilds a model turn: signed thought parts, the text (with the signature
// the API put on it) and the function calls, each with the signature it came with.
func geminiModelParts(m Message, origin string) []*gPart {
	var parts []*gPart
	var textSig []byte
	callSig := map[string][]byte{}
	for _, r := range m.Reasoning {
		if r.Format != ReasoningGemini || !reasoningFrom(r, origin) || r.Redacted {
			continue
		}
		sig := decodeSignature(r.Signature)
		switch r.Type {
		case "thought":
			if sig != nil {
				parts = append(parts, &gPart{Text: r.Text, Thought: true, ThoughtSignature: sig})
			}
		case "text":
			textSig = sig
		case "function_call":
			callSig[r.ID] = sig
		}
	}
	if m.Text != "" || textSig != nil {
		parts = append(parts, &gPart{Text: m.Text, ThoughtSignature: textSig})
	}
	for _, c := range m.ToolCalls {
		args := geminiArgs(c.Arguments)
		fc := &gFunctionCall{Name: c.Name, Args: args}
		if !strings.HasPrefix(c.ID, geminiCallPrefix) {
			fc.ID = c.ID
		}
		parts = append(parts, &gPart{FunctionCall: fc, ThoughtSignature: callSig[c.ID]})
	}
	return parts
}

// geminiArgs decodes a call's arguments for the function call's map, keeping numbers as written.
func geminiArgs(raw json.RawMessage) map[string]any {
	var args map[string]any
	dec := json.NewDecoder(bytes.NewReader(argsObject(raw)))
	dec.UseNumber()
	_ = dec.Decode(&args)
	return args
}

// decodeSignature reads a thought signature as the API sent it (standard base64); nil when it
// is empty or not base64, so that a damaged signature is left out rather than sent wrong.
func decodeSignature(s string) []byte {
	if s == "" {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || base64.StdEncoding.EncodeToString(b) != s {
		return nil
	}
	return b
}
