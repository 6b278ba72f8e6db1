package provider

import (
	"exo/harness/api"
	"fmt"
)

// The provider kinds accepted by New and `exo model register --provider`.
const (
	KindOpenAI           = "openai"
	KindOpenAICompatible = "openai-compatible"
	KindAnthropic        = "anthropic"
	KindScripted         = api.KindScripted
	// KindGemini is the Gemini API (generativelanguage.googleapis.com).
	KindGemini = "gemini"
)

// Kinds lists the provider kinds.
func Kinds() []string {
	return []string{KindOpenAI, KindOpenAICompatible, KindAnthropic, KindScripted, KindGemini}
}

// New builds a provider of the given kind, not yet wrapped in Reliable. A
// scripted provider reads its script from cfg.BaseURL (a file path); an
// openai-compatible one needs cfg.BaseURL.
func New(kind string, cfg Config) (Provider, error) {
	switch kind {
	case KindOpenAI:
		return NewOpenAI(cfg), nil
	case KindAnthropic:
		return NewAnthropic(cfg), nil
	case KindOpenAICompatible:
		if cfg.BaseURL == "" {
			return nil, fmt.Errorf("provider %s: a base URL is required (e.g. %s)", kind, OllamaChatURL(""))
		}
		return NewOpenAICompatible(cfg), nil
	case KindGemini:
		return NewGemini(cfg), nil
	case KindScripted:
		if cfg.BaseURL == "" {
			return nil, fmt.Errorf("provider %s: a script path is required", kind)
		}
		return NewScriptedFile(cfg.BaseURL)
	}
	return nil, fmt.Errorf("provider: unknown kind %q (want one of %v)", kind, Kinds())
}
