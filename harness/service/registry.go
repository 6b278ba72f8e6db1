package service

import (
	"context"
	"fmt"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/secrets"
)

// Models lists registered models and names the default.
func (s *Service) Models(ctx context.Context) (api.ModelList, error) {
	ms, err := s.h.Models()
	if ms == nil {
		ms = []harness.ModelSpec{}
	}
	return api.ModelList{Models: ms, Default: s.h.DefaultModelName()}, err
}

// Model resolves a registered model ("" is the default).
func (s *Service) Model(ctx context.Context, name string) (harness.ModelSpec, error) {
	m, err := s.h.Model(name)
	if err != nil {
		return m, fmt.Errorf("%w: %w", api.ErrNotFound, err)
	}
	return m, nil
}

// RegisterModel registers a model whose secret is sealed already.
func (s *Service) RegisterModel(ctx context.Context, spec harness.ModelSpec) (harness.ModelSpec, error) {
	if spec.Secret != "" {
		if _, err := s.h.OpenSecret(spec.Secret); err != nil {
			return spec, invalidf("secret %q is not sealed: add it with 'exo secret set %s --env VAR'", spec.Secret, spec.Secret)
		}
	}
	m, err := s.h.RegisterModel(spec)
	return m, invalid(err)
}

// RemoveModel removes a registered model.
func (s *Service) RemoveModel(ctx context.Context, name string) error {
	return invalid(s.h.RemoveModel(name))
}

// SetDefaultModel makes a registered model the default.
func (s *Service) SetDefaultModel(ctx context.Context, name string) error {
	return invalid(s.h.SetDefaultModel(name))
}

// SetSecret seals a secret.
func (s *Service) SetSecret(ctx context.Context, name string, value []byte) error {
	if len(value) == 0 {
		return invalidf("the secret is empty")
	}
	return invalid(s.h.SetSecret(name, value))
}

// Secrets lists sealed secrets: names and dates only.
func (s *Service) Secrets(ctx context.Context) ([]secrets.Info, error) {
	in, err := s.h.SecretInfos()
	if in == nil {
		in = []secrets.Info{}
	}
	return in, err
}

// RemoveSecret removes a sealed secret.
func (s *Service) RemoveSecret(ctx context.Context, name string) error {
	return invalid(s.h.RemoveSecret(name))
}

// RemoteModels asks endpoints which models they serve; endpoints that fail are named in
// Problems while the others are listed.
func (s *Service) RemoteModels(ctx context.Context, q harness.RemoteQuery) (api.RemoteModels, error) {
	ms, err := s.h.RemoteModels(ctx, q)
	out := api.RemoteModels{Models: ms}
	if out.Models == nil {
		out.Models = []harness.RemoteModel{}
	}
	if err != nil {
		if len(ms) == 0 {
			return out, err
		}
		out.Problems = err.Error()
	}
	return out, nil
}
