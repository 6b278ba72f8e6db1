package api

import "strings"

// The formats of reasoning parts: which API produced a part, and so which
// request builder sends it back.
const (
	// ReasoningAnthropic is a Messages API thinking or redacted_thinking block.
	ReasoningAnthropic = "anthropic"
	// ReasoningResponses is a Responses API reasoning item.
	ReasoningResponses = "openai-responses"
	// ReasoningContent is the reasoning_content of a Chat Completions stream
	// (DeepSeek, vLLM, llama.cpp, Z.ai, xAI).
	ReasoningContent = "reasoning_content"
	// ReasoningDetails is one entry of the reasoning_details of a Chat
	// Completions stream (OpenRouter, Vercel AI Gateway).
	ReasoningDetails = "reasoning_details"
	// ReasoningPlain is the "reasoning" field of a Chat Completions stream
	// (vLLM, Ollama, Groq, LM Studio), sent back in the same field.
	ReasoningPlain = "reasoning"
)

// Reasoning is one part of a model's reasoning as the API sent it. The
// opaque fields (Signature, Data) are kept byte for byte: the APIs check
// them when the part is sent back.
type Reasoning struct {
	// Format is one of the Reasoning* formats.
	Format string `json:"format"`
	// Type is the API's own type: "thinking" or "redacted_thinking"
	// (Anthropic), "reasoning" (Responses), "reasoning.text",
	// "reasoning.summary" or "reasoning.encrypted" (reasoning_details).
	Type string `json:"type,omitempty"`
	// ID is the item's id (Responses, reasoning_details).
	ID string `json:"id,omitempty"`
	// Text is the readable reasoning (thinking text, reasoning_content, a
	// reasoning_details text or summary, Responses reasoning text).
	Text string `json:"text,omitempty"`
	// Summary holds a Responses reasoning item's summary parts.
	Summary []string `json:"summary,omitempty"`
	// Signature is Anthropic's thinking signature or a reasoning_details
	// signature.
	Signature string `json:"signature,omitempty"`
	// Data is opaque reasoning: Anthropic redacted_thinking data, Responses
	// encrypted_content, reasoning_details encrypted data.
	Data string `json:"data,omitempty"`
	// DetailFormat is a reasoning_details entry's own format, e.g.
	// "anthropic-claude-v1" or "google-gemini-v1".
	DetailFormat string `json:"detail_format,omitempty"`
	// Index is a reasoning_details entry's index.
	Index int `json:"index,omitempty"`
	// Hidden marks text that repeats another part's (an API that sends the
	// same reasoning in two fields): kept to send back, not shown again.
	Hidden bool `json:"hidden,omitempty"`
	// Redacted marks a part whose text was changed to hide a secret: its
	// signature and encrypted content were dropped, and APIs that verify
	// reasoning do not get it back.
	Redacted bool `json:"redacted,omitempty"`
	// Origin is the endpoint and model that produced the part ("host model"):
	// reasoning goes back only to where it came from. Empty (parts recorded
	// before origins were) matches every endpoint.
	Origin string `json:"origin,omitempty"`
}

// Display is the part's readable text: the text, or the summary parts
// joined; "" for reasoning that is opaque only or hidden.
func (r Reasoning) Display() string {
	if r.Hidden {
		return ""
	}
	if r.Text != "" || len(r.Summary) == 0 {
		return r.Text
	}
	return strings.Join(r.Summary, "\n\n")
}

// ReasoningText joins the readable text of parts, one paragraph each.
func ReasoningText(parts []Reasoning) string {
	var out []string
	for _, p := range parts {
		if t := strings.TrimSpace(p.Display()); t != "" {
			out = append(out, t)
		}
	}
	return strings.Join(out, "\n\n")
}

// ReasoningGemini is a Gemini API thought part (Type "thought": its summary
// text and signature) or a thought signature the API put on an answer's
// function call (Type "function_call", ID the call's id) or text (Type
// "text"), sent back on the same part.
const ReasoningGemini = "gemini"
