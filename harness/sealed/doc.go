// Package sealed is the harness's secrets room: the named secrets sealed at rest in the store
// (harness/secrets' vault, kept in the store's secrets bucket), the redactor built from their
// values, and everything that keeps a value out of what exo stores or shows: Redact, RedactCut,
// RedactedTail, RedactStream and RedactReasoning for text, SecretPathDenied, SecretPathDeniedIn and
// SecretCommandDenied for tools. OpenSecret hands a value to the one caller allowed one (a
// provider's authentication).
//
// It may import exo/store, exo/harness/secrets and exo/harness/provider, and no other harness
// package. The event log does not import it: the harness gives the log a redaction function at
// construction (eventlog.Options.Redact) that calls Redactor here.
package sealed
