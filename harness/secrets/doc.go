// Package secrets keeps exo's named secrets sealed at rest and keeps their
// values out of everything exo stores or shows.
//
// A [Vault] seals each value with XChaCha20-Poly1305 under a random 32-byte
// key kept in a key file ($EXO_HOME/secret.key, mode 0600; a key file with
// looser permissions is refused). The secret's name and its dates are bound
// as additional data, so a sealed value cannot be moved to another name or
// re-dated without failing to open. The sealed bytes are persisted by the
// caller through a small [Backend] (the harness keeps them in bbolt);
// [MemBackend] serves tests.
//
// A [Redactor] built from the current values replaces every occurrence of a
// value, and of its base64 (standard and URL alphabets, padded or not, at
// any alignment inside a longer encoding) and hex encodings, with
// ‹secret:NAME›, in strings and in streams split into arbitrary chunks.
package secrets
