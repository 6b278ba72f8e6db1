// Package executor is exo's default executor: it reads a session's log through the harness API,
// builds the prompt view incrementally, calls the model, runs the tool loop in the session's
// sandbox and appends what happened as events. It holds no state that is not in the log.
package executor
