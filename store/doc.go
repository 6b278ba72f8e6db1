// Package store is exo's append-only event log on bbolt.
//
// It keeps branches of hash-chained events, forks them in O(1), keeps content-addressed
// artifacts on disk, projection checkpoints, and a few opaque key/value buckets for the harness.
// It knows nothing about agents: payloads are opaque JSON and records are opaque bytes. The
// caller gives it, when it opens, the vocabulary its events usually use (the names it stores by
// place and a compression dictionary, see Vocabulary); a database remembers which, and is
// opened only with that one or one that extends it.
package store
