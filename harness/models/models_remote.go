package models

import (
	"context"
	"errors"
	"fmt"

	"exo/harness/api"
	"exo/harness/provider"
)

// endpoint is one API address with its key.
type endpoint struct {
	kind, baseURL, secret string
	models                map[string][]string // model id → registered names
}

// RemoteModels asks endpoints which models they serve: the one in q.BaseURL, or else every
// endpoint a registered model uses (and a local Ollama server when none is registered). An
// endpoint that cannot be listed is reported in the error; the others are still listed.
func (reg *Registry) RemoteModels(ctx context.Context, q api.RemoteQuery) ([]api.RemoteModel, error) {
	eps, err := reg.endpoints(q)
	if err != nil {
		return nil, err
	}
	var out []api.RemoteModel
	var errs []error
	for _, ep := range eps {
		ms, err := reg.listEndpoint(ctx, ep)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, ms...)
	}
	return out, errors.Join(errs...)
}

// endpoints resolves the query to the endpoints to ask.
func (reg *Registry) endpoints(q api.RemoteQuery) ([]*endpoint, error) {
	if q.Provider != "" && (!validKind(q.Provider) || q.Provider == provider.KindScripted) {
		return nil, fmt.Errorf("provider %q: want one of openai, anthropic, openai-compatible, gemini", q.Provider)
	}
	if q.BaseURL != "" {
		kind := q.Provider
		if kind == "" {
			kind = provider.KindOpenAICompatible
		}
		return []*endpoint{{kind: kind, baseURL: q.BaseURL, secret: q.Secret, models: map[string][]string{}}}, nil
	}
	ms, err := reg.Models()
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
func (reg *Registry) listEndpoint(ctx context.Context, ep *endpoint) ([]api.RemoteModel, error) {
	cfg := provider.Config{Name: ep.kind, BaseURL: ep.baseURL}
	if ep.secret != "" {
		key, err := reg.secrets.OpenSecret(ep.secret)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", ep.kind, ep.baseURL, err)
		}
		cfg.APIKey = string(key)
	}
	ms, err := provider.ListModels(ctx, ep.kind, cfg)
	if err != nil {
		return nil, err
	}
	out := make([]api.RemoteModel, 0, len(ms))
	for _, m := range ms {
		r := api.RemoteModel{EndpointModel: m, Provider: ep.kind, BaseURL: ep.baseURL, Registered: ep.models[m.ID]}
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
