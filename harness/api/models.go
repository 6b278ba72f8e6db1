package api

// ModelSpec is a registered model: which provider serves it, how to reach it, its limits and
// prices. The API key is never here: Secret names a sealed secret the harness opens.
type ModelSpec struct {
	Name          string  `json:"name"`
	Provider      string  `json:"provider"`
	ModelID       string  `json:"model_id"`
	BaseURL       string  `json:"base_url,omitempty"`
	Secret        string  `json:"secret,omitempty"`
	ContextWindow int     `json:"context_window"`
	MaxOutput     int     `json:"max_output,omitempty"`
	PriceIn       float64 `json:"price_in"`
	PriceOut      float64 `json:"price_out"`
	PriceCachedIn float64 `json:"price_cached_in,omitempty"`
	// PriceCacheWrite is the price of cache writes ($/M; Anthropic's 5-minute writes cost 1.25×
	// input); 0 prices them as input.
	PriceCacheWrite float64 `json:"price_cache_write,omitempty"`
	// ReasoningEffort is sent to OpenAI-style reasoning models ("minimal", "low", "medium",
	// "high"...); "" sends none (the API's default).
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	// ThinkingBudget turns on Anthropic extended thinking with this many tokens; 0 or less
	// leaves it off.
	ThinkingBudget int `json:"thinking_budget,omitempty"`
}

// ThinkingOff is the ThinkingBudget that registers a model with extended thinking turned off
// even where the catalog would turn it on.
const ThinkingOff = -1

// Scripted reports whether the model is the offline scripted one (always labelled so).
func (m ModelSpec) Scripted() bool { return m.Provider == KindScripted }

// Label is how the model is shown: its name, marked when scripted.
func (m ModelSpec) Label() string {
	if m.Scripted() {
		return m.Name + " (scripted)"
	}
	return m.Name
}

// Reasoning returns what a request to the model asks for: the reasoning effort and the
// extended-thinking budget (0: none).
func (m ModelSpec) Reasoning() (effort string, thinkingBudget int) {
	return m.ReasoningEffort, max(m.ThinkingBudget, 0)
}

// RemoteQuery chooses the endpoints whose models to list.
type RemoteQuery struct {
	// Provider keeps only endpoints of this provider kind; "" keeps all.
	Provider string
	// BaseURL lists this endpoint (of kind Provider, default openai-compatible) instead of the
	// registered models' endpoints; Secret names the sealed key it needs, if any.
	BaseURL string
	Secret  string
}

// RemoteModel is one model an endpoint serves.
type RemoteModel struct {
	EndpointModel
	// Provider and BaseURL say which endpoint serves it.
	Provider string `json:"provider"`
	BaseURL  string `json:"base_url,omitempty"`
	// Known is set when exo's catalog knows the id: registering it fills limits and prices.
	Known bool `json:"known"`
	// Registered names the registered models that use this id at this endpoint.
	Registered []string `json:"registered,omitempty"`
}

// KindScripted is the provider kind of the offline scripted model.
const KindScripted = "scripted"
