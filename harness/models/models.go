package models

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"exo/harness/api"
	"exo/harness/provider"
	"exo/store"
)

// ModelCost prices a usage with a model's prices (see ModelCostOf).
func ModelCost(m api.ModelSpec, u provider.Usage) float64 {
	c, _ := ModelCostOf(m, u)
	return c
}

// ModelCostOf prices a usage with a model's prices: the provider's own figure when it sent one, else the spec's prices
// (cache reads and writes at their prices, reasoning as output). A model registered before
// cache-write prices were recorded gets the catalog's, as long as its input price is the
// catalog's. fromProvider tells which.
func ModelCostOf(m api.ModelSpec, u provider.Usage) (cost float64, fromProvider bool) {
	if u.Cost > 0 {
		return u.Cost, true
	}
	info := provider.ModelInfo{PriceIn: m.PriceIn, PriceOut: m.PriceOut, PriceCachedIn: m.PriceCachedIn, PriceCacheWrite: m.PriceCacheWrite}
	if cat, ok := provider.Lookup(m.ModelID); ok && info.PriceCacheWrite == 0 && cat.PriceIn == m.PriceIn {
		info.PriceCacheWrite = cat.PriceCacheWrite
	}
	return info.Cost(u), false
}

// UsageOf converts a provider's usage into the usage recorded in events.
func UsageOf(u provider.Usage) api.Usage {
	return api.Usage{Input: int(u.Input), Output: int(u.Output), Cached: int(u.Cached),
		CacheWrite: int(u.CacheWrite), Reasoning: int(u.Reasoning)}
}

// ErrNoModel means no model is registered or named.
var ErrNoModel = errors.New("no model")

// defaultModelKey is the settings key of the default model's name.
const defaultModelKey = "default_model"

// RegisterModel validates and stores a model, filling limits and prices from the catalog for
// well-known ids when they are not given. The first model registered becomes the default.
func (reg *Registry) RegisterModel(m api.ModelSpec) (api.ModelSpec, error) {
	if err := validModelName(m.Name); err != nil {
		return m, fmt.Errorf("model %w", err)
	}
	if !validKind(m.Provider) {
		return m, fmt.Errorf("model %s: unknown provider %q (want one of %v)", m.Name, m.Provider, provider.Kinds())
	}
	if m.ModelID == "" {
		m.ModelID = m.Name
	}
	if m.Provider == provider.KindOpenAICompatible && m.BaseURL == "" {
		return m, fmt.Errorf("model %s: --base-url is required for openai-compatible (e.g. %s)", m.Name, provider.OllamaChatURL(""))
	}
	fillFromCatalog(&m)
	raw, _ := json.Marshal(m)
	err := reg.st.Update(func(tx *store.Tx) error {
		if err := tx.PutRecord(store.Models, m.Name, raw); err != nil {
			return err
		}
		if _, err := tx.Record(store.Settings, defaultModelKey); errors.Is(err, store.ErrNotFound) {
			return tx.PutRecord(store.Settings, defaultModelKey, []byte(m.Name))
		}
		return nil
	})
	return m, err
}

// validKind reports whether kind is a provider kind.
func validKind(kind string) bool {
	for _, k := range provider.Kinds() {
		if k == kind {
			return true
		}
	}
	return false
}

// fillFromCatalog sets unset limits and prices from the model catalog.
func fillFromCatalog(m *api.ModelSpec) {
	info, ok := provider.Lookup(m.ModelID)
	if m.ContextWindow == 0 {
		m.ContextWindow = 128_000
		if ok {
			m.ContextWindow = info.ContextWindow
		}
	}
	if ok {
		if m.MaxOutput == 0 {
			m.MaxOutput = info.MaxOutput
		}
		if m.PriceIn == 0 && m.PriceOut == 0 {
			m.PriceIn, m.PriceOut, m.PriceCachedIn, m.PriceCacheWrite = info.PriceIn, info.PriceOut, info.PriceCachedIn, info.PriceCacheWrite
		}
		if m.ReasoningEffort == "" && m.Provider != provider.KindOpenAICompatible {
			m.ReasoningEffort = info.ReasoningEffort
		}
		if m.ThinkingBudget == 0 && m.Provider == provider.KindAnthropic {
			m.ThinkingBudget = info.ThinkingBudget
		}
	}
}

// Models lists registered models by name.
func (reg *Registry) Models() ([]api.ModelSpec, error) {
	var out []api.ModelSpec
	err := reg.st.View(func(tx *store.Tx) error {
		return tx.Records(store.Models, func(_ string, v []byte) error {
			var m api.ModelSpec
			if err := json.Unmarshal(v, &m); err != nil {
				return fmt.Errorf("decode model: %w", err)
			}
			out = append(out, m)
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// Model returns a registered model by name; "" means the default.
func (reg *Registry) Model(name string) (api.ModelSpec, error) {
	if name == "" {
		def, err := reg.st.Record(store.Settings, defaultModelKey)
		if errors.Is(err, store.ErrNotFound) {
			return api.ModelSpec{}, fmt.Errorf("%w registered: register one with 'exo model register' (or try the scripted demo: exo model register demo --provider scripted)", ErrNoModel)
		}
		if err != nil {
			return api.ModelSpec{}, err
		}
		name = string(def)
	}
	raw, err := reg.st.Record(store.Models, name)
	if errors.Is(err, store.ErrNotFound) {
		return api.ModelSpec{}, fmt.Errorf("%w named %q (see 'exo model ls')", ErrNoModel, name)
	}
	if err != nil {
		return api.ModelSpec{}, err
	}
	var m api.ModelSpec
	return m, json.Unmarshal(raw, &m)
}

// SetDefaultModel makes a registered model the default.
func (reg *Registry) SetDefaultModel(name string) error {
	if _, err := reg.Model(name); err != nil {
		return err
	}
	return reg.st.PutRecord(store.Settings, defaultModelKey, []byte(name))
}

// DefaultModelName returns the default model's name, or "".
func (reg *Registry) DefaultModelName() string {
	v, err := reg.st.Record(store.Settings, defaultModelKey)
	if err != nil {
		return ""
	}
	return string(v)
}

// RemoveModel deletes a registered model (and the default setting if it was the default).
func (reg *Registry) RemoveModel(name string) error {
	if _, err := reg.Model(name); err != nil {
		return err
	}
	return reg.st.Update(func(tx *store.Tx) error {
		if def, _ := tx.Record(store.Settings, defaultModelKey); string(def) == name {
			if err := tx.DeleteRecord(store.Settings, defaultModelKey); err != nil {
				return err
			}
		}
		return tx.DeleteRecord(store.Models, name)
	})
}

// breakers keeps one circuit breaker per provider endpoint for the life of the harness.
type breakers struct {
	mu sync.Mutex
	m  map[string]*provider.Breaker
}

// get returns the breaker for key, creating it.
func (b *breakers) get(key string) *provider.Breaker {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]*provider.Breaker{}
	}
	if b.m[key] == nil {
		b.m[key] = provider.NewBreaker(5, 0)
	}
	return b.m[key]
}

// OpenProvider builds the provider of a registered model ("" = default): the harness opens the
// model's sealed secret to authenticate it, and wraps it with retries and a circuit breaker.
func (reg *Registry) OpenProvider(name string) (provider.Provider, api.ModelSpec, error) {
	m, err := reg.Model(name)
	if err != nil {
		return nil, m, err
	}
	cfg := provider.Config{Name: m.Provider, BaseURL: m.BaseURL}
	if m.Scripted() {
		cfg.Name = "scripted"
		if m.BaseURL == "" {
			if len(reg.demoScript) == 0 {
				return nil, m, fmt.Errorf("model %s: no script: pass --base-url PATH to a script file", m.Name)
			}
			sc, err := provider.ParseScript("demo", reg.demoScript)
			if err != nil {
				return nil, m, fmt.Errorf("model %s: built-in demo script: %w", m.Name, err)
			}
			return provider.NewScripted(sc), m, nil
		}
	}
	if m.Secret != "" {
		key, err := reg.secrets.OpenSecret(m.Secret)
		if err != nil {
			return nil, m, fmt.Errorf("model %s: %w", m.Name, err)
		}
		cfg.APIKey = string(key)
	}
	p, err := provider.New(m.Provider, cfg)
	if err != nil {
		return nil, m, fmt.Errorf("model %s: %w", m.Name, err)
	}
	if m.Scripted() {
		return p, m, nil
	}
	return provider.NewReliable(p, provider.DefaultRetryPolicy(), reg.brk.get(m.Provider+" "+m.BaseURL)), m, nil
}

// maxNameLen bounds a model's name.
const maxNameLen = 128

// validModelName checks a model's name is usable as a reference and safe to print: no '@', '/',
// space, control or other unprintable character (ids such as qwen2.5:7b stay usable).
func validModelName(name string) error {
	ok := name != "" && len(name) <= maxNameLen && utf8.ValidString(name) && !strings.ContainsAny(name, "@/")
	for _, r := range name {
		ok = ok && unicode.IsPrint(r) && !unicode.IsSpace(r)
	}
	if !ok {
		return fmt.Errorf("name %q: use 1-%d printable characters other than spaces, '@' and '/'", name, maxNameLen)
	}
	return nil
}
