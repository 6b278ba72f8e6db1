// Package api is the harness API that the app, the CLI and external tools use: one Go interface
// served in-process (harness/service, for tests) and over a unix socket by exo's daemon
// (harness/daemon). Every request and result type here is plain data that travels as JSON.
//
// It owns the protocol and nothing else: the event envelope (Event) and the event vocabulary
// (every Type* constant of the harness with its payload struct, registered in one table with
// its family and summary, see RegisterType and Decode), the session state projection
// (SessionState and its Apply, which folds events one at a time, the same in the daemon and in
// any client), the plain data of requests and responses (sessions, models, tasks, scopes…) and
// the errors, whose wire codes keep errors.Is working across the socket.
//
// It imports the standard library only, never another exo package nor net/http (leaf_test.go
// holds that): the harness and its packages name these types through aliases.
package api
