package provider

import "exo/harness/api"

// Usage counts the tokens of one call (api.ModelUsage: the harness API reports it).
type Usage = api.ModelUsage

// RemoteModel is a model an endpoint serves (api.EndpointModel).
type RemoteModel = api.EndpointModel

// Reasoning is one part of a model's reasoning as the API sent it (api.Reasoning: events
// record it).
type Reasoning = api.Reasoning

// Skipped is output of a type exo does not use (api.Skipped: events record it).
type Skipped = api.Skipped

// The formats of reasoning parts (see api.ReasoningAnthropic).
const (
	ReasoningAnthropic = api.ReasoningAnthropic
	ReasoningResponses = api.ReasoningResponses
	ReasoningContent   = api.ReasoningContent
	ReasoningDetails   = api.ReasoningDetails
	ReasoningPlain     = api.ReasoningPlain
	ReasoningGemini    = api.ReasoningGemini
)

// ReasoningText joins the readable text of parts, one paragraph each.
func ReasoningText(parts []Reasoning) string { return api.ReasoningText(parts) }

// reasoningFrom reports whether the part may go back to origin.
func reasoningFrom(r Reasoning, origin string) bool {
	return r.Origin == "" || r.Origin == origin
}
