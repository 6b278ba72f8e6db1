package store

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Hash is a sha256 digest in the event chain.
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

// Record is an event to append: the store assigns branch, seq, time and hash.
type Record struct {
	Type  string
	Actor string
	Data  json.RawMessage
}

// Event is one committed, immutable entry of a branch's history.
type Event struct {
	Branch string          `json:"branch"`
	Seq    uint64          `json:"seq"`
	Type   string          `json:"type"`
	Time   time.Time       `json:"time"`
	Actor  string          `json:"actor"`
	Data   json.RawMessage `json:"data"`
	Hash   Hash            `json:"hash"`
}

// The first byte of every stored event is its encoding version.
const (
	// encodingVersion stores the payload as it is.
	encodingVersion = 1
	// encodingCompressed stores the payload's length and its zstd frame (see event_zstd.go).
	encodingCompressed = 2
	// encodingNamed stores the payload as it is and the type and actor by their place in the
	// vocabulary's names when they are there (see event_names.go).
	encodingNamed = 3
)

// errUnknownName is a stored name's place past the end of the vocabulary's names.
var errUnknownName = errors.New("name refers past the end of the known names")

// appendUvarint appends v as a uvarint.
func appendUvarint(buf []byte, v uint64) []byte { return binary.AppendUvarint(buf, v) }

// maxFieldLen bounds a decoded field so a damaged length cannot allocate gigabytes.
const maxFieldLen = 1 << 30

// hash reads the final hash, which must be all that is left.
func (r *reader) hash(e *Event) error {
	if r.err != nil {
		return fmt.Errorf("decode event: %w", r.err)
	}
	if len(r.b) != len(e.Hash) {
		return fmt.Errorf("decode event: %d trailing bytes, want a %d-byte hash", len(r.b), len(e.Hash))
	}
	copy(e.Hash[:], r.b)
	return nil
}

// ComputeHash returns sha256(prev ‖ canonical envelope) for an event.
func ComputeHash(prev Hash, e *Event) Hash {
	h := sha256.New()
	h.Write(prev[:])
	var buf []byte
	buf = append(buf, "exo.event.v1\x00"...)
	buf = appendString(buf, e.Branch)
	buf = binary.AppendUvarint(buf, e.Seq)
	buf = binary.AppendVarint(buf, e.Time.UnixNano())
	buf = appendString(buf, e.Type)
	buf = appendString(buf, e.Actor)
	buf = binary.AppendUvarint(buf, uint64(len(e.Data)))
	h.Write(buf)
	h.Write(e.Data)
	var out Hash
	h.Sum(out[:0])
	return out
}

// appendString appends a uvarint length and the bytes of s.
func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// reader decodes length-prefixed fields, remembering the first error.
type reader struct {
	b       []byte
	err     error
	scratch [binary.MaxVarintLen64]byte
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || n != len(binary.AppendUvarint(r.scratch[:0], v)) {
		r.err = fmt.Errorf("bad or non-canonical varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 || n != len(binary.AppendVarint(r.scratch[:0], v)) {
		r.err = fmt.Errorf("bad or non-canonical varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > maxFieldLen || n > uint64(len(r.b)) {
		r.err = fmt.Errorf("field length %d exceeds the %d bytes left", n, len(r.b))
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

// seqKey encodes a sequence number as an 8-byte big-endian key.
func seqKey(seq uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], seq)
	return k[:]
}

// keySeq decodes an 8-byte big-endian key.
func keySeq(k []byte) uint64 {
	if len(k) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(k)
}
