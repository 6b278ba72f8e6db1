package harness

import (
	"context"
	"errors"
	"fmt"

	"exo/harness/provider"
)

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
	provider.RemoteModel
	// Provider and BaseURL say which endpoint serves it.
	Provider string `json:"provider"`
	BaseURL  string `json:"base_url,omitempty"`
	// Known is set when exo's catalog knows the id: registering it fills limits and prices.
	Known bool `json:"known"`
	// Registered names the registered models that use this id at this endpoint.
	Registered []string `json:"registered,omitempty"`
}

// endpoint is one API address with its key.
type endpoint struct {
	kind, baseURL, secret string
	models                map[string][]string // model id → registered names
}

// RemoteModels asks endpoints which models they serve: the one in q.BaseURL, or else every
// endpoint a registered model uses (and a local Ollama server when none is registered). An
// endpoint that cannot be listed is reported in the error; the others are still listed.
func (h *Harness) RemoteModels(ctx context.Context, q RemoteQuery) ([]RemoteModel, error) {
	eps, err := h.endpoints(q)
	if err != nil {
		return nil, err
	}
	var out []RemoteModel
	var errs []error
	for _, ep := range eps {
		ms, err := h.listEndpoint(ctx, ep)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, ms...)
	}
	return out, errors.Join(errs...)
}

// endpoints resolves the query to the endpoints to ask.
func (h *Harness) endpoints(q RemoteQuery) ([]*endpoint, error) {
	if q.Provider != "" && (!validKind(q.Provider) || q.Provider == provider.KindScripted) {
		return nil, fmt.Errorf("provider %q: want one of openai, anthropic, openai-compatible", q.Provider)
	}
	if q.BaseURL != "" {
		kind := q.Provider
		if kind == "" {
			kind = provider.KindOpenAICompatible
		}
		return []*endpoint{{kind: kind, baseURL: q.BaseURL, secret: q.Secret, models: map[string][]string{}}}, nil
	}
	ms, err := h.Models()
	if err != nil {
		return nil, err
	}
	var eps []*endpoint
	byKey := map[string]*endpoint{}
	for _, m := range ms {
		if m.Scripted() || q.Provider != "" && m.Provider != q.Provider {
			continue
		}
		key := m.Provider + " " + m.BaseURL + " " + m.Secret
		if byKey[key] == nil {
			byKey[key] = &endpoint{kind: m.Provider, baseURL: m.BaseURL, secret: m.Secret, models: map[string][]string{}}
			eps = append(eps, byKey[key])
		}
		byKey[key].models[m.ModelID] = append(byKey[key].models[m.ModelID], m.Name)
	}
	if len(eps) == 0 && (q.Provider == "" || q.Provider == provider.KindOpenAICompatible) {
		eps = append(eps, &endpoint{kind: provider.KindOpenAICompatible, baseURL: provider.OllamaChatURL(""), models: map[string][]string{}})
	}
	if len(eps) == 0 {
		return nil, fmt.Errorf("%w of provider %s: register one, or give --base-url", ErrNoModel, q.Provider)
	}
	return eps, nil
}

// listEndpoint lists one endpoint, with what the catalog knows of each id.
func (h *Harness) listEndpoint(ctx context.Context, ep *endpoint) ([]RemoteModel, error) {
	cfg := provider.Config{Name: ep.kind, BaseURL: ep.baseURL}
	if ep.secret != "" {
		key, err := h.OpenSecret(ep.secret)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", ep.kind, ep.baseURL, err)
		}
		cfg.APIKey = string(key)
	}
	ms, err := provider.ListModels(ctx, ep.kind, cfg)
	if err != nil {
		return nil, err
	}
	out := make([]RemoteModel, 0, len(ms))
	for _, m := range ms {
		r := RemoteModel{RemoteModel: m, Provider: ep.kind, BaseURL: ep.baseURL, Registered: ep.models[m.ID]}
		if info, ok := provider.Lookup(m.ID); ok {
			r.Known = true
			r.ContextWindow = max(r.ContextWindow, info.ContextWindow)
			if r.PriceIn == 0 && r.PriceOut == 0 {
				r.PriceIn, r.PriceOut = info.PriceIn, info.PriceOut
			}
		}
		out = append(out, r)
	}
	return out, nil
}
