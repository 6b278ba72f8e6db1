package provider

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"time"
)

// Provider is a language model behind exo's executor.
type Provider interface {
	// Name identifies the provider instance, e.g. "openai" or "scripted:demo".
	Name() string
	// Stream sends req and calls onDelta for every piece of output as it
	// arrives, then returns the completed response. onDelta may be nil. On
	// error the returned Response is the zero value: a partial answer is
	// never returned as if it were complete. What had streamed before the
	// error comes with the error instead (PartialOf).
	Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error)
}

// Role says who wrote a message.
type Role string

// The roles of a conversation.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Request is one call to a model.
type Request struct {
	// Model is the provider's model id, e.g. "gpt-4.1" or "claude-sonnet-4-5".
	Model string `json:"model"`
	// System is the system prompt.
	System string `json:"system,omitempty"`
	// Messages is the conversation so far, oldest first.
	Messages []Message `json:"messages"`
	// Tools are the functions the model may call.
	Tools []Tool `json:"tools,omitempty"`
	// MaxOutputTokens caps the answer; 0 means the catalog's default.
	MaxOutputTokens int `json:"max_output_tokens,omitempty"`
	// CachePrefix marks the system prompt and tools as the stable prefix to
	// cache (Anthropic cache_control; OpenAI caches prefixes on its own).
	CachePrefix bool `json:"cache_prefix,omitempty"`
	// CacheKey, when set, is sent as OpenAI's prompt_cache_key so that
	// requests sharing a prefix are routed to the same cache.
	CacheKey string `json:"cache_key,omitempty"`
	// ReasoningEffort is sent to reasoning models as OpenAI's reasoning
	// effort ("minimal", "low", "medium", "high", ...); "" leaves the API's
	// default.
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	// ThinkingBudget turns on Anthropic extended thinking with this many
	// tokens (at least 1024); 0 leaves it off.
	ThinkingBudget int `json:"thinking_budget,omitempty"`
}

// Message is one entry of the conversation.
type Message struct {
	// Role is user, assistant or tool.
	Role Role `json:"role"`
	// Text is the user's or assistant's text, or a tool result's content.
	Text string `json:"text,omitempty"`
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID links a tool result (RoleTool) to its call.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// IsError marks a tool result as a failure.
	IsError bool `json:"is_error,omitempty"`
	// CacheBreakpoint marks the end of a stable stretch of history (for
	// example a compaction summary) where Anthropic may cache the prefix.
	CacheBreakpoint bool `json:"cache_breakpoint,omitempty"`
	// Reasoning is an assistant message's reasoning as the model sent it,
	// passed back to the API that produced it (and ignored by others).
	Reasoning []Reasoning `json:"reasoning,omitempty"`
	// Images are a user message's images, sent after its text as image content.
	Images []Image `json:"images,omitempty"`
}

// Image is an image a user message carries: its media type and bytes. In a prompt view
// only the artifact is set; the executor loads the bytes (Data) for the request.
type Image struct {
	// MediaType is image/png, image/jpeg, image/gif or image/webp.
	MediaType string `json:"media_type"`
	// Artifact is the id of the artifact holding the bytes.
	Artifact string `json:"artifact,omitempty"`
	// Data is the image's bytes, loaded for the request.
	Data []byte `json:"-"`
}

// DataURL returns the image as a base64 data URL (data:image/png;base64,…).
func (im Image) DataURL() string {
	return "data:" + im.MediaType + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
}

// HasImages reports whether any message carries an image.
func HasImages(msgs []Message) bool {
	for _, m := range msgs {
		if len(m.Images) > 0 {
			return true
		}
	}
	return false
}

// ToolCall is a model's request to run a tool.
type ToolCall struct {
	// ID is the provider's call id, echoed back with the result.
	ID string `json:"id"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Arguments is the JSON object of arguments.
	Arguments json.RawMessage `json:"arguments"`
}

// Tool describes a function the model may call.
type Tool struct {
	// Name is the tool's name.
	Name string `json:"name"`
	// Description tells the model what the tool does.
	Description string `json:"description"`
	// Schema is the JSON schema of the arguments object.
	Schema json.RawMessage `json:"schema"`
}

// DeltaKind says what a Delta carries.
type DeltaKind int

// The kinds of streamed pieces.
const (
	// DeltaText is a piece of the answer's text.
	DeltaText DeltaKind = iota
	// DeltaToolCall announces a tool call: Index, ID and Name are set.
	DeltaToolCall
	// DeltaToolArgs is a piece of a tool call's JSON arguments.
	DeltaToolArgs
	// DeltaReasoning is a piece of the model's reasoning (thinking text or
	// a summary of it), shown dimmed while the answer is prepared.
	DeltaReasoning
)

// Delta is one streamed piece of a response. It holds only the new piece,
// never the text so far.
type Delta struct {
	// Kind says which fields matter.
	Kind DeltaKind
	// Text is new answer text (DeltaText), new argument JSON (DeltaToolArgs)
	// or new reasoning text (DeltaReasoning).
	Text string
	// Index is the tool call's position in the response (tool deltas).
	Index int
	// ID is the tool call's id (DeltaToolCall).
	ID string
	// Name is the tool's name (DeltaToolCall).
	Name string
}

// StopReason says why the model stopped.
type StopReason string

// The normalised stop reasons; others pass through as the provider said them.
const (
	StopEndTurn   StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
	StopRefusal   StopReason = "refusal"
)

// Response is a completed model turn.
type Response struct {
	// Text is the answer's text.
	Text string `json:"text"`
	// ToolCalls are the tools the model asked to run, in order.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Usage is the provider's token count.
	Usage Usage `json:"usage"`
	// StopReason says why the model stopped.
	StopReason StopReason `json:"stop_reason"`
	// TTFT is the time from sending the request to the first streamed token.
	TTFT time.Duration `json:"ttft_ns"`
	// Model is the model id the provider reports (or the one requested).
	Model string `json:"model"`
	// Reasoning is the model's reasoning, in the order received, with the
	// opaque signatures and encrypted content exactly as sent.
	Reasoning []Reasoning `json:"reasoning,omitempty"`
	// Skipped is the output of types exo does not use (a server tool's call
	// and results, citations, unknown deltas and events), passed over, with
	// what it held.
	Skipped []Skipped `json:"skipped,omitempty"`
}
