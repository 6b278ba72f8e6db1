// Package store is exo's append-only event log on bbolt.
//
// It keeps branches of hash-chained events, forks them in O(1), keeps content-addressed
// artifacts on disk, projection checkpoints, and a few opaque key/value buckets for the harness.
// It knows nothing about agents: payloads are opaque JSON and records are opaque bytes.
package store
