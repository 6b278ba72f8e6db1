package api

// ModelUsage counts the tokens of one provider call (the provider package calls it Usage). Input includes Cached and CacheWrite and Output
// includes Reasoning, whatever the provider's own convention.
type ModelUsage struct {
	// Input is every prompt token, cached or not.
	Input int64 `json:"input"`
	// Output is the generated tokens, reasoning included.
	Output int64 `json:"output"`
	// Cached is the prompt tokens read from the provider's cache.
	Cached int64 `json:"cached"`
	// CacheWrite is the prompt tokens written to the cache (Anthropic,
	// OpenRouter).
	CacheWrite int64 `json:"cache_write,omitempty"`
	// Reasoning is the output tokens spent on reasoning, when the provider
	// says (they are billed as output).
	Reasoning int64 `json:"reasoning,omitempty"`
	// Cost is the price in US dollars the provider itself reported for the
	// call (OpenRouter usage.cost, xAI cost_in_usd_ticks); 0 when it sent none.
	Cost float64 `json:"cost,omitempty"`
}

// Add returns the sum of two usages.
func (u ModelUsage) Add(o ModelUsage) ModelUsage {
	return ModelUsage{Input: u.Input + o.Input, Output: u.Output + o.Output,
		Cached: u.Cached + o.Cached, CacheWrite: u.CacheWrite + o.CacheWrite,
		Reasoning: u.Reasoning + o.Reasoning, Cost: u.Cost + o.Cost}
}
