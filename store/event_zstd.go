package store

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// An event is stored compressed (encoding version 2) when that makes it smaller: its type,
// actor and payload together as one zstd frame. A long session is mostly tool outputs, file
// contents and answers; a shared dictionary of the usual shapes of events helps the smaller ones. The hash chain stays over the
// uncompressed canonical envelope, so compression changes neither hashes nor `exo verify`.

// eventDict is zstd's raw-content dictionary for events: samples of their usual shapes. It is
// only an aid (anything compresses with or without it) but events written with it need it to
// be read, so its bytes never change: a better one gets a new id and this one stays readable.
//
//go:embed event_dict.txt
var eventDict []byte

// eventDictID names eventDict in every frame that uses it.
const eventDictID = 0x65786f01 // "exo" 1

// compressMin is the smallest event body (type, actor and payload) stored compressed: below it
// the few bytes saved cost ten times the time to read (3 µs against 0.3 µs per event).
const compressMin = 96

// maxCompressed is the most an event stored compressed may expand to: a larger one is stored as
// it is, and a damaged length cannot make a read allocate more.
const maxCompressed = 64 << 20

// zstdMagic starts every zstd frame; it is left out of stored frames and put back to read them.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// zstdEncoder returns the shared encoder (built on first use, not at start-up). EncodeAll is
// safe for concurrent use.
var zstdEncoder = sync.OnceValue(func() *zstd.Encoder {
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderCRC(false),
		zstd.WithLowerEncoderMem(true), zstd.WithEncoderDictRaw(eventDictID, eventDict))
	if err != nil {
		panic(fmt.Sprintf("zstd encoder: %v", err)) // only bad options fail, and these are fixed.
	}
	return e
})

// zstdDecoder returns the shared decoder, bounded to maxCompressed of output. DecodeAll is safe
// for concurrent use.
var zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
	d, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxCompressed), zstd.WithDecodeAllCapLimit(true),
		zstd.WithDecoderConcurrency(2), zstd.WithDecoderDictRaw(eventDictID, eventDict))
	if err != nil {
		panic(fmt.Sprintf("zstd decoder: %v", err)) // only bad options fail, and these are fixed.
	}
	return d
})

// compressFrame returns raw as a zstd frame without its magic, or nil when raw is too small
// or too large.
func compressFrame(raw []byte) []byte {
	if len(raw) < compressMin || len(raw) > maxCompressed {
		return nil
	}
	c := zstdEncoder().EncodeAll(raw, make([]byte, 0, len(raw)/2+16))
	if !bytes.HasPrefix(c, zstdMagic) {
		return nil
	}
	return c[len(zstdMagic):]
}

// decompressFrame expands a stored frame that must be exactly size bytes.
func decompressFrame(frame []byte, size uint64) ([]byte, error) {
	if size > maxCompressed {
		return nil, fmt.Errorf("compressed event claims %d bytes, more than %d", size, maxCompressed)
	}
	src := make([]byte, 0, len(zstdMagic)+len(frame))
	src = append(append(src, zstdMagic...), frame...)
	out, err := zstdDecoder().DecodeAll(src, make([]byte, 0, size))
	if err != nil {
		return nil, fmt.Errorf("compressed event: %w", err)
	}
	if uint64(len(out)) != size {
		return nil, fmt.Errorf("compressed event is %d bytes, want %d", len(out), size)
	}
	return out, nil
}
