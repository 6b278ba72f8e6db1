// Package daemon serves the harness API (harness/api) over HTTP on a unix socket, one daemon per
// EXO_HOME, and is the client every exo command uses: it finds the daemon, starts it when none
// runs (detached, under a start lock), checks the protocol and build, and speaks the wire.
package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/relay"
)

// Protocol is the wire protocol's version: a client and a daemon of different versions do not
// talk (the newer asks an idle older daemon to exit).
const Protocol = relay.Protocol

// Headers every request carries.
const (
	headerProtocol = "X-Exo-Protocol"
	headerBuild    = "X-Exo-Build"
	// headerBuilt is the client's BuildTime (RFC 3339): a drain to replace the daemon is
	// accepted only from a newer build.
	headerBuilt = "X-Exo-Built"
)

// builtHeader is BuildTime as it travels.
var builtHeader = sync.OnceValue(func() string { return BuildTime().Format(time.RFC3339Nano) })

// frame is one line of a stream (watch, tail, exec): a notice, exec output, or the end.
type frame struct {
	// Watch is the id of the watch, in its first frame.
	Watch string `json:"watch,omitempty"`

	Session string          `json:"session,omitempty"`
	Events  []harness.Event `json:"events,omitempty"`
	Delta   string          `json:"delta,omitempty"`
	// Reasoning is streamed reasoning ("thinking") of an answer in progress.
	Reasoning string              `json:"reasoning,omitempty"`
	Output    string              `json:"output,omitempty"`
	Lagged    bool                `json:"lagged,omitempty"`
	Turn      *harness.TurnNotice `json:"turn,omitempty"`
	Clients   map[string]int      `json:"clients,omitempty"`
	// HasClients is set when Clients is meant, even empty (nobody watches anything).
	HasClients bool `json:"has_clients,omitempty"`
	// Peer names the daemon that runs Session elsewhere on a shared store.
	Peer string `json:"peer,omitempty"`
	// Progress is long work going on in Session.
	Progress *harness.Progress `json:"progress,omitempty"`
	// Governance is Session's governance summary, when it changed.
	Governance *api.GovernanceSummary `json:"governance,omitempty"`

	// Result ends an exec stream; Error ends any stream that failed.
	Result *api.ExecResult   `json:"result,omitempty"`
	Error  *api.RemoteError  `json:"error,omitempty"`
	Ping   bool              `json:"ping,omitempty"`
	Extra  map[string]string `json:"extra,omitempty"`
}

// noticeFrame encodes a notice.
func noticeFrame(n harness.Notice) frame {
	return frame{Session: n.Session, Events: n.Events, Delta: n.Delta, Reasoning: n.Reasoning, Output: string(n.Output), Lagged: n.Lagged,
		Turn: n.Turn, Clients: n.Clients, HasClients: n.Clients != nil, Peer: n.Peer, Progress: n.Progress,
		Governance: n.Governance}
}

// notice decodes a frame's notice.
func (f frame) notice() harness.Notice {
	n := harness.Notice{Session: f.Session, Events: f.Events, Delta: f.Delta, Reasoning: f.Reasoning, Lagged: f.Lagged, Turn: f.Turn, Peer: f.Peer, Progress: f.Progress,
		Governance: f.Governance}
	if f.Output != "" {
		n.Output = []byte(f.Output)
	}
	if f.HasClients {
		n.Clients = f.Clients
		if n.Clients == nil {
			n.Clients = map[string]int{}
		}
	}
	return n
}

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

// writeJSON answers a request with a value.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		// the client went away mid-answer: nothing more to tell it
		_ = err
	}
}

// readJSON decodes a request body into v.
func readJSON(r *http.Request, v any) error {
	if r.Body == nil {
		return fmt.Errorf("%w: empty body", api.ErrInvalid)
	}
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxBody))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: bad JSON body: %v", api.ErrInvalid, err)
	}
	return nil
}

// maxBody bounds a request body (a prompt or a secret, never a file upload).
const maxBody = 64 << 20
