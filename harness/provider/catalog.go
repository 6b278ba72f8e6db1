package provider

import (
	"regexp"
	"sort"
	"strings"
)

// ModelInfo is what exo knows about a model: its limits and list prices in
// US dollars per million tokens. Figures are list prices as published by
// the providers in late 2025 and can be overridden per registered model.
type ModelInfo struct {
	// ID is the canonical model id without a date suffix.
	ID string `json:"id"`
	// Provider is the company serving the model: "openai", "anthropic", "google", "xai",
	// "deepseek", "zai" or "moonshot".
	Provider string `json:"provider"`
	// ContextWindow is the most tokens of input plus output.
	ContextWindow int `json:"context_window"`
	// MaxOutput is the most output tokens in one response.
	MaxOutput int `json:"max_output"`
	// PriceIn is the price of uncached input tokens.
	PriceIn float64 `json:"price_in"`
	// PriceOut is the price of output tokens.
	PriceOut float64 `json:"price_out"`
	// PriceCachedIn is the price of cache reads (0: same as PriceIn).
	PriceCachedIn float64 `json:"price_cached_in,omitempty"`
	// PriceCacheWrite is the price of cache writes (0: same as PriceIn).
	PriceCacheWrite float64 `json:"price_cache_write,omitempty"`
	// ReasoningEffort is the reasoning effort exo asks an OpenAI reasoning
	// model for by default ("" for models that do not reason).
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	// ThinkingBudget is the extended-thinking budget exo gives an Anthropic
	// model by default (0 for models without extended thinking).
	ThinkingBudget int `json:"thinking_budget,omitempty"`
}

// Cost returns the price in US dollars of the given usage.
func (m ModelInfo) Cost(u Usage) float64 {
	cachedIn, write := m.PriceCachedIn, m.PriceCacheWrite
	if cachedIn == 0 {
		cachedIn = m.PriceIn
	}
	if write == 0 {
		write = m.PriceIn
	}
	plain := max(u.Input-u.Cached-u.CacheWrite, 0)
	return (float64(plain)*m.PriceIn + float64(u.Cached)*cachedIn +
		float64(u.CacheWrite)*write + float64(u.Output)*m.PriceOut) / 1e6
}

// Cost returns the price of usage on model, and false for an unknown model.
func Cost(model string, u Usage) (float64, bool) {
	info, ok := Lookup(model)
	if !ok {
		return 0, false
	}
	return info.Cost(u), true
}

// catalog lists the known models by canonical id.
var catalog = map[string]ModelInfo{}

// register adds models to the catalog.
func register(provider string, ctx, out int, in, cachedIn, write, outPrice float64, ids ...string) {
	for _, id := range ids {
		catalog[id] = ModelInfo{ID: id, Provider: provider, ContextWindow: ctx, MaxOutput: out,
			PriceIn: in, PriceOut: outPrice, PriceCachedIn: cachedIn, PriceCacheWrite: write}
	}
}

// DefaultThinkingBudget is the extended-thinking budget of Anthropic models
// that support it, unless the registered model says otherwise.
const DefaultThinkingBudget = 4096

// DefaultReasoningEffort is the effort asked of OpenAI reasoning models
// unless the registered model says otherwise.
const DefaultReasoningEffort = "medium"

// OpenAIReasoningModel reports whether id is an OpenAI reasoning model
// (gpt-5 and its variants except the chat ones, the o-series, codex-mini),
// which takes a reasoning effort and returns reasoning items.
func OpenAIReasoningModel(id string) bool {
	m := bareID(id)
	if strings.Contains(m, "-chat") {
		return false
	}
	for _, p := range []string{"gpt-5", "o1", "o3", "o4", "codex-mini"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// usesMaxCompletionTokens reports whether OpenAI refuses max_tokens for id
// and wants max_completion_tokens (gpt-5 and the o-series).
func usesMaxCompletionTokens(id string) bool {
	m := bareID(id)
	return OpenAIReasoningModel(m) || strings.HasPrefix(m, "gpt-5")
}

// bareID lowercases an id and strips a provider prefix ("openai/gpt-5").
func bareID(id string) string {
	m := strings.ToLower(strings.TrimSpace(id))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	return m
}

// reasoningDefaults sets the default effort or thinking budget of the
// catalog's reasoning models.
func reasoningDefaults() {
	for id, m := range catalog {
		switch {
		case m.Provider == "openai" && OpenAIReasoningModel(id):
			m.ReasoningEffort = DefaultReasoningEffort
		case m.Provider == "anthropic" && id != "claude-3-5-haiku":
			m.ThinkingBudget = DefaultThinkingBudget
		}
		catalog[id] = m
	}
}

func init() {
	// OpenAI: cache writes are free, reads discounted.
	register("openai", 1_047_576, 32_768, 2.00, 0.50, 0, 8.00, "gpt-4.1")
	register("openai", 1_047_576, 32_768, 0.40, 0.10, 0, 1.60, "gpt-4.1-mini")
	register("openai", 1_047_576, 32_768, 0.10, 0.025, 0, 0.40, "gpt-4.1-nano")
	register("openai", 128_000, 16_384, 2.50, 1.25, 0, 10.00, "gpt-4o", "chatgpt-4o")
	register("openai", 128_000, 16_384, 0.15, 0.075, 0, 0.60, "gpt-4o-mini")
	register("openai", 400_000, 128_000, 1.25, 0.125, 0, 10.00, "gpt-5", "gpt-5.1", "gpt-5-codex", "gpt-5.1-codex")
	register("openai", 400_000, 128_000, 0.25, 0.025, 0, 2.00, "gpt-5-mini", "gpt-5.1-codex-mini")
	register("openai", 400_000, 128_000, 0.05, 0.005, 0, 0.40, "gpt-5-nano")
	register("openai", 400_000, 128_000, 15.00, 0, 0, 120.00, "gpt-5-pro")
	register("openai", 128_000, 16_384, 1.25, 0.125, 0, 10.00, "gpt-5-chat", "gpt-5.1-chat")
	register("openai", 200_000, 100_000, 1.50, 0.375, 0, 6.00, "codex-mini")
	register("openai", 200_000, 100_000, 2.00, 0.50, 0, 8.00, "o3")
	register("openai", 200_000, 100_000, 20.00, 0, 0, 80.00, "o3-pro")
	register("openai", 200_000, 100_000, 1.10, 0.55, 0, 4.40, "o3-mini")
	register("openai", 200_000, 100_000, 1.10, 0.275, 0, 4.40, "o4-mini")
	register("openai", 200_000, 100_000, 15.00, 7.50, 0, 60.00, "o1")
	register("openai", 200_000, 100_000, 150.00, 0, 0, 600.00, "o1-pro")
	// Anthropic: cache reads at 0.1×, 5-minute cache writes at 1.25× input.
	register("anthropic", 200_000, 64_000, 3.00, 0.30, 3.75, 15.00,
		"claude-sonnet-4-5", "claude-sonnet-4", "claude-3-7-sonnet")
	register("anthropic", 200_000, 64_000, 5.00, 0.50, 6.25, 25.00, "claude-opus-4-5")
	register("anthropic", 200_000, 32_000, 15.00, 1.50, 18.75, 75.00, "claude-opus-4-1", "claude-opus-4")
	register("anthropic", 200_000, 64_000, 1.00, 0.10, 1.25, 5.00, "claude-haiku-4-5")
	register("anthropic", 200_000, 8_192, 0.80, 0.08, 1.00, 4.00, "claude-3-5-haiku")
	// Google, through the Gemini API (exo's gemini provider) or OpenAI-compatible endpoints:
	// prices of prompts up to 200k tokens (longer ones cost more), implicit cache reads at a
	// tenth of input (a quarter for 2.0), no charge for cache writes.
	register("google", 1_048_576, 65_536, 1.25, 0.125, 0, 10.00, "gemini-2.5-pro")
	register("google", 1_048_576, 65_536, 0.30, 0.03, 0, 2.50, "gemini-2.5-flash")
	register("google", 1_048_576, 65_536, 0.10, 0.01, 0, 0.40, "gemini-2.5-flash-lite")
	register("google", 1_048_576, 65_536, 2.00, 0.20, 0, 12.00, "gemini-3-pro-preview", "gemini-3.1-pro-preview")
	register("google", 1_048_576, 65_536, 0.50, 0.05, 0, 3.00, "gemini-3-flash-preview")
	register("google", 1_048_576, 8_192, 0.10, 0.025, 0, 0.40, "gemini-2.0-flash")
	register("google", 1_048_576, 8_192, 0.075, 0, 0, 0.30, "gemini-2.0-flash-lite")
	register("xai", 256_000, 0, 3.00, 0, 0, 15.00, "grok-4")
	register("xai", 256_000, 0, 0.20, 0, 0, 1.50, "grok-code-fast-1", "grok-code-fast")
	register("xai", 131_072, 0, 0.30, 0.075, 0, 0.50, "grok-3-mini")
	register("deepseek", 128_000, 8_192, 0.28, 0.028, 0, 0.42, "deepseek-chat")
	register("deepseek", 128_000, 65_536, 0.28, 0.028, 0, 0.42, "deepseek-reasoner")
	register("zai", 200_000, 128_000, 0.60, 0, 0, 2.20, "glm-4.6")
	register("moonshot", 262_144, 0, 0.60, 0, 0, 2.50, "kimi-k2", "kimi-k2-0905")
	reasoningDefaults()
}

// dateSuffix matches "-20250514", "-2024-08-06" and "-latest".
var dateSuffix = regexp.MustCompile(`(-\d{8}|-\d{4}-\d{2}-\d{2}|-latest)$`)

// Lookup finds a model by id, tolerating a provider prefix ("openai/"), a
// date or "-latest" suffix, dotted versions ("claude-sonnet-4.5") and the
// old Anthropic order ("claude-3-7-sonnet" is also "claude-3.7-sonnet").
func Lookup(id string) (ModelInfo, bool) {
	key := dateSuffix.ReplaceAllString(bareID(id), "")
	if m, ok := catalog[key]; ok {
		return m, true
	}
	if strings.HasPrefix(key, "claude-") {
		if m, ok := catalog[strings.ReplaceAll(key, ".", "-")]; ok {
			return m, true
		}
	}
	return ModelInfo{}, false
}

// Models lists the catalog sorted by provider and id.
func Models() []ModelInfo {
	out := make([]ModelInfo, 0, len(catalog))
	for _, m := range catalog {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Provider != out[j].Provider {
			return out[i].Provider < out[j].Provider
		}
		return out[i].ID < out[j].ID
	})
	return out
}
