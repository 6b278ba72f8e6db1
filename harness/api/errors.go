package api

import (
	"errors"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/governance"
)

// Errors of the harness API beyond the harness's own.
var (
	// ErrBusy means a turn already runs on the session.
	ErrBusy = executor.ErrBusy
	// ErrResolved means an approval was already answered (by another client, or the harness).
	ErrResolved = errors.New("this approval was already answered")
	// ErrNotFound means a named thing (artifact, task, model, secret) does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalid means the request itself is wrong (a bad name, an empty prompt, …).
	ErrInvalid = errors.New("invalid request")
	// ErrUnavailable means the harness cannot be reached or started.
	ErrUnavailable = errors.New("the exo daemon is unavailable")
)

// codes maps wire error codes to the errors they stand for, so errors.Is works across the wire.
var codes = []struct {
	code string
	err  error
}{
	{"no_session", harness.ErrNoSession},
	{"ambiguous", harness.ErrAmbiguous},
	{"bad_seq", harness.ErrBadSeq},
	{"busy", ErrBusy},
	{"resolved", ErrResolved},
	{"not_found", ErrNotFound},
	{"invalid", ErrInvalid},
	{"nothing_to_compact", executor.ErrNothingToCompact},
	{"governance_drift", governance.ErrGovernanceDrift},
	{"finished", governance.ErrFinished},
	{"same_session", governance.ErrSameSession},
	{"corrupt", harness.ErrCorrupt},
	{"not_owner", harness.ErrNotOwner},
	{"orphaned", harness.ErrOrphaned},
}

// ErrorCode returns the wire code of an error ("" for none of the known ones).
func ErrorCode(err error) string {
	for _, c := range codes {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return ""
}

// RemoteError is an error that crossed the wire: its message as the harness wrote it and the
// code that makes errors.Is match the original sentinel.
type RemoteError struct {
	Code    string `json:"code,omitempty"`
	Message string `json:"error"`
}

// Error returns the harness's message.
func (e *RemoteError) Error() string { return e.Message }

// Is matches the sentinel error of the code.
func (e *RemoteError) Is(target error) bool {
	for _, c := range codes {
		if c.code == e.Code && c.err == target {
			return true
		}
	}
	return false
}
