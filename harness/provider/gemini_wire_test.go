package provider

import (
	"bytes"
	"encoding/json"
	"testing"

	"google.golang.org/genai"
)

// sdkRequest is geminiRequest made of the SDK's own types.
type sdkRequest struct {
	Contents          []*genai.Content        `json:"contents"`
	SystemInstruction *genai.Content          `json:"systemInstruction,omitempty"`
	Tools             []*genai.Tool           `json:"tools,omitempty"`
	ToolConfig        *genai.ToolConfig       `json:"toolConfig,omitempty"`
	GenerationConfig  *genai.GenerationConfig `json:"generationConfig,omitempty"`
}

// TestGeminiWireMatchesSDK holds exo's Gemini request shapes to the SDK's: each body exo builds,
// read into the SDK's types and written again, comes out byte for byte the same, so a field the
// SDK does not know, a name spelt differently or a field out of the SDK's order fails here.
func TestGeminiWireMatchesSDK(t *testing.T) {
	t.Parallel()
	tools := []Tool{
		{Name: "bash", Description: "run a command", Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
		{Name: "noargs"},
	}
	here := "127.0.0.1 gemini-3-pro-preview"
	thought := []Message{
		{Role: RoleUser, Text: "think"},
		{Role: RoleAssistant, Text: "answer", ToolCalls: []ToolCall{{ID: "c1", Name: "bash", Arguments: json.RawMessage(`{"command":"ls","n":1.50}`)}},
			Reasoning: []Reasoning{
				{Format: ReasoningGemini, Type: "thought", Text: "plan", Signature: "AQID", Origin: here},
				{Format: ReasoningGemini, Type: "text", Signature: "BAUG", Origin: here},
				{Format: ReasoningGemini, Type: "function_call", ID: "c1", Signature: "BwgJ", Origin: here},
			}},
		{Role: RoleTool, ToolCallID: "c1", Text: "failed", IsError: true},
	}
	cases := map[string]Request{
		"switched history, gemini 3, tools":   {Model: "gemini-3-pro-preview", System: "be brief", Messages: switchedHistory(), Tools: tools, ReasoningEffort: "low", MaxOutputTokens: 2048},
		"thoughts and signatures, high":       {Model: "gemini-3-pro-preview", Messages: thought, ReasoningEffort: "high"},
		"gemini 2.5 with a budget":            {Model: "models/gemini-2.5-flash", Messages: thought, ThinkingBudget: 512, MaxOutputTokens: 1 << 40},
		"older model, nothing but the prompt": {Model: "gemini-2.0-flash", Messages: []Message{{Role: RoleUser, Text: "hi"}}},
	}
	for name, req := range cases {
		body, err := json.Marshal(geminiParams(req, here))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var sdk sdkRequest
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&sdk); err != nil {
			t.Fatalf("%s: the SDK's types cannot read exo's body: %v\n%s", name, err, body)
		}
		// A schema is sent as exo holds it (raw JSON); read into the SDK's any it would come
		// back with its keys sorted, so it goes back as it was.
		for i, tool := range sdk.Tools {
			for j, d := range tool.FunctionDeclarations {
				d.ParametersJsonSchema = geminiParams(req, here).Tools[i].FunctionDeclarations[j].ParametersJSONSchema
			}
		}
		want, err := json.Marshal(sdk)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(body, want) {
			t.Errorf("%s: exo's body differs from the SDK's\nexo: %s\nsdk: %s", name, body, want)
		}
	}
}
