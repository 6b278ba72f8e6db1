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
	// BaseURL is the provider's API base for pass-through kinds (e.g. https://api.anthropic.com).
	BaseURL string
	// key is the sealed API key, opened by the harness; it never leaves exo.
	key string
	// Provider serves kinds whose wire format differs from the agent's: the endpoint translates
	// (exo's provider streams, the endpoint speaks the agent's wire format).
	Provider provider.Provider
}

// defaultAnthropicBase is Anthropic's API base.
const defaultAnthropicBase = "https://api.anthropic.com"

// OpenUpstream resolves a registered model ("" = the default) for an agent that speaks wire
// ("anthropic" for the Messages API): a model of the same wire is passed through with the sealed
// key; any other kind is served through exo's own provider and translated.
func OpenUpstream(h *harness.Harness, model, wire string) (Upstream, error) {
	spec, err := h.Model(model)
	if err != nil {
		return Upstream{}, err
	}
	u := Upstream{Spec: spec}
	if spec.Provider == wire && wire == provider.KindAnthropic {
		u.BaseURL = strings.TrimSuffix(firstNonEmpty(spec.BaseURL, defaultAnthropicBase), "/")
		if spec.Secret != "" {
			key, err := h.OpenSecret(spec.Secret)
			if err != nil {
				return Upstream{}, fmt.Errorf("model %s: %w", spec.Name, err)
			}
			u.key = string(key)
		}
		return u, nil
	}
	p, _, err := h.OpenProvider(spec.Name)
	if err != nil {
		return Upstream{}, err
	}
	u.Provider = p
	return u, nil
}

// PassThrough reports whether calls go to the provider unchanged (only the key added).
func (u Upstream) PassThrough() bool { return u.Provider == nil }

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
