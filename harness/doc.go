// Package harness is exo's trusted core: sessions and their branches, typed events, projections,
// fork and rewind, and the API through which the UI and executors reach state.
//
// Everything the harness knows is folded from the event log in store/: a Session record names a
// session's branches, and every other fact (status, conversation, usage) is a projection of events.
package harness
