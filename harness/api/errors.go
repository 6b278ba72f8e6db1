package api

import (
	"errors"
	"sync"
)

// Errors of the harness API. The harness and its packages name them too (harness.ErrNoSession
// is ErrNoSession), so errors.Is matches the same sentinel in-process and across the wire.
var (
	// ErrNoSession means a session reference matched nothing.
	ErrNoSession = errors.New("no such session")
	// ErrAmbiguous means a session reference matched several sessions.
	ErrAmbiguous = errors.New("ambiguous session reference")
	// ErrBadSeq means a seq given for fork or rewind is not an event of the session's history.
	ErrBadSeq = errors.New("no such event")
	// ErrOrphaned means a session's daemon is gone and its workspace is not reachable here.
	ErrOrphaned = errors.New("session is orphaned: its daemon is gone and its workspace is not reachable here")
	// ErrBusy means a turn already runs on the session.
	ErrBusy = errors.New("a turn is already running on this session")
	// ErrNothingToCompact means a compaction found nothing worth compacting.
	ErrNothingToCompact = errors.New("nothing to compact: the history is only the last two user turns")
	// ErrGovernanceDrift means the project's constitution changed since it was compiled.
	ErrGovernanceDrift = errors.New("governance drift")
	// ErrFinished means the session has finished already.
	ErrFinished = errors.New("session has finished already")
	// ErrSameSession means a session was asked to hand off to itself.
	ErrSameSession = errors.New("a session cannot hand off to itself")
	// ErrResolved means an approval was already answered (by another client, or the harness).
	ErrResolved = errors.New("this approval was already answered")
	// ErrNotFound means a named thing (artifact, task, model, secret) does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalid means the request itself is wrong (a bad name, an empty prompt, …).
	ErrInvalid = errors.New("invalid request")
	// ErrUnavailable means the harness cannot be reached or started.
	ErrUnavailable = errors.New("the exo daemon is unavailable")
)

// errorCode is a wire error code and the sentinel it stands for.
type errorCode struct {
	code string
	err  error
}

// codes maps wire error codes to the errors they stand for, so errors.Is works across the wire.
// Sentinels of packages api cannot import (the store's) are added with RegisterErrorCode.
var (
	codesMu sync.RWMutex
	codes   = []errorCode{
		{"no_session", ErrNoSession},
		{"ambiguous", ErrAmbiguous},
		{"bad_seq", ErrBadSeq},
		{"busy", ErrBusy},
		{"resolved", ErrResolved},
		{"not_found", ErrNotFound},
		{"invalid", ErrInvalid},
		{"nothing_to_compact", ErrNothingToCompact},
		{"governance_drift", ErrGovernanceDrift},
		{"finished", ErrFinished},
		{"same_session", ErrSameSession},
		{"orphaned", ErrOrphaned},
	}
)

// RegisterErrorCode adds a wire code for a sentinel error defined below the API (the store's
// ErrCorrupt and ErrNotOwner, registered by the harness's event log), so that errors.Is matches it across
// the wire too. It panics when the code is taken, a programming error found at start-up.
func RegisterErrorCode(code string, err error) {
	codesMu.Lock()
	defer codesMu.Unlock()
	for _, c := range codes {
		if c.code == code {
			if c.err == err {
				return
			}
			panic("api: error code registered twice: " + code)
		}
	}
	codes = append(codes, errorCode{code, err})
}

// Wire codes of sentinels defined below the API, registered by the harness (RegisterErrorCode):
// clients that do not link the store test for them with HasCode.
const (
	// CodeCorrupt is the store's ErrCorrupt: EXO_HOME's database is damaged.
	CodeCorrupt = "corrupt"
	// CodeNotOwner is the store's ErrNotOwner: another live daemon owns the session.
	CodeNotOwner = "not_owner"
	// CodeUnreachable is the store's ErrUnreachable: the shared store (etcd) did not answer.
	CodeUnreachable = "store_unreachable"
	// CodeForeign is the store's ErrForeign: EXO_HOME's exo.db is no exo database (another
	// kind of file, a directory, a link out of EXO_HOME).
	CodeForeign = "foreign"
)

// HasCode reports whether err carries the wire code code: a RemoteError of that code, or (in
// the process that registered it) the sentinel registered for it.
func HasCode(err error, code string) bool {
	if err == nil {
		return false
	}
	var re *RemoteError
	if errors.As(err, &re) && re.Code == code {
		return true
	}
	return ErrorCode(err) == code
}

// ErrorCode returns the wire code of an error ("" for none of the known ones).
func ErrorCode(err error) string {
	codesMu.RLock()
	defer codesMu.RUnlock()
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
	codesMu.RLock()
	defer codesMu.RUnlock()
	for _, c := range codes {
		if c.code == e.Code && c.err == target {
			return true
		}
	}
	return false
}
