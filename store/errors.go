package store

import "errors"

// Sentinel errors returned (wrapped) by the store.
var (
	// ErrLocked means another process holds EXO_HOME.
	ErrLocked = errors.New("exo home is locked by another process")
	// ErrCorrupt means the database file is damaged.
	ErrCorrupt = errors.New("database is corrupted")
	// ErrForeign means the file is not an exo database.
	ErrForeign = errors.New("not an exo database")
	// ErrNewerSchema means the file was written by a newer exo.
	ErrNewerSchema = errors.New("database was written by a newer exo")
	// ErrNoBranch means a branch id is unknown.
	ErrNoBranch = errors.New("no such branch")
	// ErrBadSeq means a sequence number is outside a branch's history.
	ErrBadSeq = errors.New("sequence number out of range")
	// ErrNotFound means a record, artifact or checkpoint does not exist.
	ErrNotFound = errors.New("not found")
	// ErrBranchExists means a branch id is already taken.
	ErrBranchExists = errors.New("branch already exists")
)

// ErrNotOwner means another process owns the branch: only its owner appends to it.
var ErrNotOwner = errors.New("branch is owned by another daemon")

// ErrTooLarge means a write does not fit one commit of the engine (etcd's request and
// transaction limits): nothing of it was stored.
var ErrTooLarge = errors.New("write exceeds the store's request limits")

// ErrVocabulary means the database's events were stored with a vocabulary (names and
// compression dictionary) other than the one the store was opened with: reading them with it
// could give the wrong names, so the store refuses to open.
var ErrVocabulary = errors.New("database was written with another event vocabulary")

// ErrReadOnly means EXO_HOME cannot be written (a read-only mount, or a folder this user may
// not write): the store opened for reading, and refuses every write.
var ErrReadOnly = errors.New("exo's home is read-only")

// ErrNodeInUse means another live daemon on the etcd cluster goes by this daemon's node name:
// give this one another (node= in the store URL). Its EXO_HOME is not the problem.
var ErrNodeInUse = errors.New("node name is in use by another live daemon on the cluster")

// requestError is a request the store's engine did not complete (the cluster did not answer
// in time, refused it, or the client closed): it says nothing of what is stored, so a check
// that meets one reports it as it is, never as damage.
type requestError struct{ err error }

func (e requestError) Error() string { return e.err.Error() }
func (e requestError) Unwrap() error { return e.err }

// isRequestError reports whether err is, or wraps, a request the engine did not complete.
func isRequestError(err error) bool {
	var r requestError
	return errors.As(err, &r)
}
