// Package models is the harness's models room: the models registered in the store (their
// specs, prices and limits filled from the provider catalog), the default model, what remote
// endpoints serve, pricing and usage conversion, and the providers built from a registered model
// (authenticated with its sealed secret, wrapped with retries and a circuit breaker).
//
// It may import exo/store, exo/harness/api and exo/harness/provider, and no other harness
// package. The one thing it needs from another service, a secret's value, comes through the
// SecretOpener given at construction (the sealed secrets service).
package models
