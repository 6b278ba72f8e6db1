package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Codec encodes and decodes stored events with one vocabulary: what the store writes and
// reads under each event key.
type Codec struct {
	// names and index are the vocabulary's names and each one's place plus one.
	names []string
	index map[string]uint64
	// dictID and dict are the vocabulary's compression dictionary (dictID 0: none).
	dictID uint32
	dict   []byte
	// encoder and decoder are built on first use, not at open.
	encoder func() *zstd.Encoder
	decoder func() *zstd.Decoder
}

// codecs shares one codec, and so one zstd encoder and decoder, between the stores opened with
// the same vocabulary: by its encoded record.
var codecs sync.Map

// NewCodec returns the codec of a vocabulary (one codec, shared, per vocabulary).
func NewCodec(v Vocabulary) *Codec {
	key := string(v.record().encode())
	if c, ok := codecs.Load(key); ok {
		return c.(*Codec)
	}
	c := &Codec{names: slices.Clone(v.Names), index: make(map[string]uint64, len(v.Names))}
	for i, n := range c.names {
		if _, dup := c.index[n]; !dup {
			c.index[n] = uint64(i + 1)
		}
	}
	if v.DictID != 0 {
		c.dictID, c.dict = v.DictID, slices.Clone(v.Dict)
	}
	c.encoder = sync.OnceValue(c.newEncoder)
	c.decoder = sync.OnceValue(c.newDecoder)
	got, _ := codecs.LoadOrStore(key, c)
	return got.(*Codec)
}

// Encode serialises an event (without its branch, which is the bucket) for storage: with its
// type, actor and payload compressed when that makes it smaller (version 2, see
// event_zstd.go), else as they are with known names by number (version 3).
func (c *Codec) Encode(e *Event) []byte {
	head := appendString(appendString(nil, e.Type), e.Actor)
	body := append(head[:len(head):len(head)], e.Data...)
	plain := appendString(c.appendName(c.appendName(nil, e.Type), e.Actor), string(e.Data))
	frame := c.compressFrame(body)
	buf := make([]byte, 0, 64+min(len(plain), len(frame)+8))
	version := byte(encodingNamed)
	if frame != nil && len(frame)+binary.MaxVarintLen64 < len(plain) {
		version = encodingCompressed
	}
	buf = append(buf, version)
	buf = binary.AppendUvarint(buf, e.Seq)
	buf = binary.AppendVarint(buf, e.Time.UnixNano())
	if version == encodingCompressed {
		buf = binary.AppendUvarint(buf, uint64(len(body)))
		buf = appendString(buf, string(frame))
	} else {
		buf = append(buf, plain...)
	}
	return append(buf, e.Hash[:]...)
}

// Decode parses a stored event value; branch names the bucket it came from. It never panics on
// damaged input and returns an error that says what is wrong.
func (c *Codec) Decode(branch string, b []byte) (Event, error) {
	return c.decode(branch, b, nil)
}

// decode is Decode with the payload put in a (nil: in memory of its own). Type and actor
// names of the vocabulary are its strings, not copies.
func (c *Codec) decode(branch string, b []byte, a *arena) (Event, error) {
	e := Event{Branch: branch}
	if len(b) == 0 || b[0] < encodingVersion || b[0] > encodingNamed {
		return e, fmt.Errorf("decode event: unknown encoding version")
	}
	r := reader{b: b[1:]}
	e.Seq = r.uvarint()
	e.Time = time.Unix(0, r.varint()).UTC()
	switch b[0] {
	case encodingCompressed:
		return c.decodeCompressed(e, &r, a)
	case encodingNamed:
		e.Type, e.Actor = c.name(&r, a), c.name(&r, a)
	default:
		e.Type, e.Actor = c.intern(r.bytes(), a), c.intern(r.bytes(), a)
	}
	data := r.bytes()
	if err := r.hash(&e); err != nil {
		return e, err
	}
	if a == nil {
		e.Data = json.RawMessage(append([]byte(nil), data...))
	} else {
		e.Data = json.RawMessage(a.add(data))
	}
	return e, nil
}

// ValidData refuses an event whose data is not JSON: bytes flipped on disk inside an event
// that only the chain's hash catches, when verified. Reads do not check it (json.Valid made a
// 2 KB event's decode ten times slower: 1.1 → 11 µs, BenchmarkDecodeEvent); verify does, and
// the daemon names such an event when an answer carrying it cannot be encoded.
func ValidData(e Event) error {
	if json.Valid(e.Data) {
		return nil
	}
	return DamagedData(e.Branch, e.Seq)
}

// DamagedData is the error naming event branch@seq, whose stored data is no longer JSON.
func DamagedData(branch string, seq uint64) error {
	return fmt.Errorf("event %s@%d is damaged (its data is not JSON): %w (%s)", branch, seq, ErrCorrupt, wayOut)
}

// decodeCompressed reads the rest of a version 2 event: the body's size, its frame, the hash;
// the body is expanded into a (nil: memory of its own).
func (c *Codec) decodeCompressed(e Event, r *reader, a *arena) (Event, error) {
	size := r.uvarint()
	frame := r.bytes()
	if err := r.hash(&e); err != nil {
		return e, err
	}
	var dst []byte
	if a != nil && size <= maxCompressed {
		dst = a.room(int(size))
	}
	body, err := c.decompressFrame(frame, size, dst)
	if err != nil {
		return e, fmt.Errorf("decode event %d: %w", e.Seq, err)
	}
	if a != nil {
		a.used(body)
	}
	br := reader{b: body}
	e.Type = c.intern(br.bytes(), a)
	e.Actor = c.intern(br.bytes(), a)
	if br.err != nil {
		return e, fmt.Errorf("decode event %d: %w", e.Seq, br.err)
	}
	e.Data = json.RawMessage(br.b)
	return e, nil
}

// intern returns name as a string: the vocabulary's own when it holds it, else the arena's
// copy when a has one, else a copy.
func (c *Codec) intern(name []byte, a *arena) string {
	if i, ok := c.index[string(name)]; ok {
		return c.names[i-1]
	}
	if a != nil {
		return a.name(name)
	}
	return string(name)
}

// decodeHead returns an event's seq and hash without decompressing its body (the hash is stored
// after it): what a fork needs of the event at its fork point.
func (c *Codec) decodeHead(branch string, b []byte) (uint64, Hash, error) {
	if len(b) == 0 || b[0] != encodingCompressed {
		e, err := c.Decode(branch, b)
		return e.Seq, e.Hash, err
	}
	e := Event{Branch: branch}
	r := reader{b: b[1:]}
	e.Seq = r.uvarint()
	r.varint()  // time
	r.uvarint() // body size
	r.bytes()   // body frame
	if err := r.hash(&e); err != nil {
		return 0, Hash{}, err
	}
	return e.Seq, e.Hash, nil
}
