package daemon

import (
	"encoding/json"
	"errors"
	"net/http"

	"exo/harness/api"
	"exo/harness/daemon/wire"
)

// Protocol is the wire protocol's version: a client and a daemon of different versions do not
// talk (the newer asks an idle older daemon to exit).
const Protocol = wire.Protocol

// LogName is the daemon's log in EXO_HOME; InfoName its description while it runs.
const (
	LogName  = wire.LogName
	InfoName = wire.InfoName
)

// BuildID identifies this exo binary (see wire.BuildID).
func BuildID() string { return wire.BuildID() }

// frame is one line of a stream (watch, tail, exec).
type frame = wire.Frame

// remoteError converts an error for the wire.
func remoteError(err error) *api.RemoteError {
	var re *api.RemoteError
	if errors.As(err, &re) {
		return re
	}
	return &api.RemoteError{Code: api.ErrorCode(err), Message: err.Error()}
}

// statusOf chooses the HTTP status of an error.
func statusOf(err error) int {
	switch api.ErrorCode(err) {
	case "no_session", "not_found":
		return http.StatusNotFound
	case "ambiguous", "bad_seq", "invalid", "same_session", "finished", "nothing_to_compact":
		return http.StatusBadRequest
	case "busy", "resolved", "governance_drift", "not_owner", "orphaned":
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

// writeError answers a request with an error object.
func writeError(w http.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(statusOf(err))
	_ = json.NewEncoder(w).Encode(remoteError(err))
}

// writeJSON answers a request with a value; a value that cannot be encoded (an event whose
// stored data was damaged) is answered with an error saying so.
func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, unencodable(err, v))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	// a write error: the client went away mid-answer, nothing more to tell it
	_, _ = w.Write(append(b, '\n'))
}
