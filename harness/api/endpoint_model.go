package api

// EndpointModel is a model an endpoint serves, as its model listing says.
type EndpointModel struct {
	// ID is the id to register, e.g. "gpt-4.1-2025-04-14" or "anthropic/claude-haiku-4.5".
	ID string `json:"id"`
	// Name is the endpoint's display name, when it gives one.
	Name string `json:"name,omitempty"`
	// ContextWindow is the context the endpoint reports (vLLM, llama.cpp, OpenRouter), or 0.
	ContextWindow int `json:"context_window,omitempty"`
	// MaxOutput is the output limit the endpoint reports (OpenRouter), or 0.
	MaxOutput int `json:"max_output,omitempty"`
	// PriceIn, PriceOut, PriceCachedIn and PriceCacheWrite are the endpoint's own prices in
	// US dollars per million tokens (OpenRouter), or 0.
	PriceIn         float64 `json:"price_in,omitempty"`
	PriceOut        float64 `json:"price_out,omitempty"`
	PriceCachedIn   float64 `json:"price_cached_in,omitempty"`
	PriceCacheWrite float64 `json:"price_cache_write,omitempty"`
	// Size is the model's size on disk (Ollama), or 0.
	Size int64 `json:"size,omitempty"`
}
