package models

import (
	"exo/store"
)

// SecretOpener opens a sealed secret's value (the secrets service, given at construction): the
// registry opens a model's secret only to authenticate its provider.
type SecretOpener interface {
	OpenSecret(name string) ([]byte, error)
}

// Registry is the models service: the models registered in the store, the default model, and
// the providers built from them, with one circuit breaker per endpoint for its life.
type Registry struct {
	st         *store.Store
	demoScript []byte
	secrets    SecretOpener
	brk        breakers
}

// New returns the registry kept in st. demoScript is the built-in scripted-model script used by
// a scripted model without a path; secrets opens the secrets models authenticate with.
func New(st *store.Store, demoScript []byte, secrets SecretOpener) *Registry {
	return &Registry{st: st, demoScript: demoScript, secrets: secrets}
}
