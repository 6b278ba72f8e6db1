package api

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Hash is a sha256 digest in a branch's event chain.
type Hash [32]byte

// String returns the hash in lowercase hex.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// Short returns the first 12 hex digits of the hash.
func (h Hash) Short() string { return h.String()[:12] }

// MarshalText encodes the hash as hex, so JSON shows a readable string.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText decodes a hex hash.
func (h *Hash) UnmarshalText(b []byte) error {
	if hex.DecodedLen(len(b)) != len(h) {
		return fmt.Errorf("hash %q: want %d hex digits", b, 2*len(h))
	}
	_, err := hex.Decode(h[:], b)
	return err
}

// Event is one committed, immutable entry of a branch's history, as the API hands it out: the
// envelope (branch, seq, type, time, actor, hash) and the payload, whose Go type the event's
// Type names (see Decode). It carries the same fields as the store's event, which the harness
// converts at its boundary, so that no client imports the store.
type Event struct {
	Branch string          `json:"branch"`
	Seq    uint64          `json:"seq"`
	Type   string          `json:"type"`
	Time   time.Time       `json:"time"`
	Actor  string          `json:"actor"`
	Data   json.RawMessage `json:"data"`
	Hash   Hash            `json:"hash"`
}
