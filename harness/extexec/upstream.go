package extexec

import (
	"fmt"
	"strings"

	"exo/harness"
	"exo/harness/provider"
)

// Upstream is where an endpoint sends an agent's model calls: the model registered in exo.
type Upstream struct {
	// Spec is the registered model (provider kind, model id, base URL, prices).
	Spec harness.ModelSpec
	// Wire is the wire format calls in this format pass through to the provider unchanged (with
	// the sealed key): provider.KindAnthropic, WireResponses or WireGemini; "" when none does.
	Wire string
	// BaseURL is the provider's API base for the pass-through wire (e.g. https://api.anthropic.com,
	// https://api.openai.com/v1).
	BaseURL string
	// key is the sealed API key, opened by the harness; it never leaves exo.
	key string
	// Provider serves calls of the other wire formats: the endpoint translates (exo's provider
	// streams, the endpoint speaks the agent's wire format).
	Provider provider.Provider
}

// Default API bases of the pass-through providers.
const (
	defaultAnthropicBase = "https://api.anthropic.com"
	defaultOpenAIBase    = "https://api.openai.com/v1"
)

// OpenUpstream resolves a registered model ("" = the default): calls to an Anthropic model in the
// Messages API and to an OpenAI model in the Responses API are passed through with the sealed
// key; any other pairing is served through exo's own provider and translated, so an agent of
// either wire format can use any registered model.
func OpenUpstream(h *harness.Harness, model string) (Upstream, error) {
	spec, err := h.Model(model)
	if err != nil {
		return Upstream{}, err
	}
	u := Upstream{Spec: spec}
	switch {
	case spec.Provider == provider.KindAnthropic:
		u.Wire, u.BaseURL = provider.KindAnthropic, strings.TrimSuffix(firstNonEmpty(spec.BaseURL, defaultAnthropicBase), "/")
	case spec.Provider == provider.KindOpenAI:
		u.Wire, u.BaseURL = WireResponses, strings.TrimSuffix(firstNonEmpty(spec.BaseURL, defaultOpenAIBase), "/")
	case spec.Provider == provider.KindGemini:
		u.Wire, u.BaseURL = WireGemini, strings.TrimSuffix(strings.TrimSuffix(firstNonEmpty(spec.BaseURL, provider.DefaultGeminiURL), "/"), "/v1beta")
	}
	if u.Wire != "" && spec.Secret != "" {
		key, err := h.OpenSecret(spec.Secret)
		if err != nil {
			return Upstream{}, fmt.Errorf("model %s: %w", spec.Name, err)
		}
		u.key = string(key)
	}
	p, _, err := h.OpenProvider(spec.Name)
	if err != nil {
		return Upstream{}, err
	}
	u.Provider = p
	return u, nil
}

// passes reports whether calls in wire go to the provider unchanged (only the key added).
func (u Upstream) passes(wire string) bool { return u.Wire != "" && u.Wire == wire }

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
