package store

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// An event is stored compressed (encoding version 2) when that makes it smaller: its type,
// actor and payload together as one zstd frame. A long session is mostly tool outputs, file
// contents and answers; the vocabulary's dictionary of the usual shapes of events helps the
// smaller ones. The hash chain stays over the uncompressed canonical envelope, so compression
// changes neither hashes nor `exo verify`.

// compressMin is the smallest event body (type, actor and payload) stored compressed: below it
// the few bytes saved cost ten times the time to read (3 µs against 0.3 µs per event).
const compressMin = 96

// maxCompressed is the most an event stored compressed may expand to: a larger one is stored as
// it is, and a damaged length cannot make a read allocate more.
const maxCompressed = 64 << 20

// zstdMagic starts every zstd frame; it is left out of stored frames and put back to read them.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// encoderWindow is the encoder's window: how far back a match may reach. The encoder keeps a
// history buffer of its size, allocated at its first event and kept for the process's life; at
// zstd's default (8 MiB, one state per core) the daemon's two held 16.6 MiB of a 26 MiB live
// heap while an answer streamed. Events are small (a tool output's 8 KB, an answer's few hundred
// KB): one larger than the window still compresses, with matches only within it.
const encoderWindow = 256 << 10

// newEncoder builds the codec's encoder, with its dictionary if it has one. EncodeAll is safe
// for concurrent use; one state is enough, as events are encoded in write transactions, which
// bbolt runs one at a time (on etcd, concurrent appends wait the few µs an event takes).
// The fastest level keeps one match table (and its copy for the dictionary) of 256 KiB where
// the default level keeps two of 1.25 MiB: the codec holds 0.9 MiB instead of 3.6 (the daemon's
// live heap after an answer was 8.9 MiB), for a store 0.8–1.8% larger (BenchmarkStoreSize, 5,000
// turns: realistic 10.68 → 10.87 MiB, light 7.94 → 8.01; Crush's file 16.27 and 10.69).
func (c *Codec) newEncoder() *zstd.Encoder {
	opts := []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(false), zstd.WithLowerEncoderMem(true),
		zstd.WithWindowSize(encoderWindow), zstd.WithEncoderConcurrency(1)}
	if c.dictID != 0 {
		opts = append(opts, zstd.WithEncoderDictRaw(c.dictID, c.dict))
	}
	e, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		panic(fmt.Sprintf("zstd encoder: %v", err)) // only bad options fail, and these are fixed.
	}
	return e
}

// newDecoder builds the codec's decoder, bounded to maxCompressed of output, with its
// dictionary if it has one. DecodeAll is safe for concurrent use.
func (c *Codec) newDecoder() *zstd.Decoder {
	opts := []zstd.DOption{zstd.WithDecoderMaxMemory(maxCompressed), zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderConcurrency(2)}
	if c.dictID != 0 {
		opts = append(opts, zstd.WithDecoderDictRaw(c.dictID, c.dict))
	}
	d, err := zstd.NewReader(nil, opts...)
	if err != nil {
		panic(fmt.Sprintf("zstd decoder: %v", err)) // only bad options fail, and these are fixed.
	}
	return d
}

// compressFrame returns raw as a zstd frame without its magic, or nil when raw is too small
// or too large.
func (c *Codec) compressFrame(raw []byte) []byte {
	if len(raw) < compressMin || len(raw) > maxCompressed {
		return nil
	}
	out := c.encoder().EncodeAll(raw, make([]byte, 0, len(raw)/2+16))
	if !bytes.HasPrefix(out, zstdMagic) {
		return nil
	}
	return out[len(zstdMagic):]
}

// frameBufs holds the buffers a stored frame is copied into behind zstd's magic number for
// decoding (DecodeAll keeps nothing of its input): reading 80,000 events made as much garbage.
var frameBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// decompressFrame expands a stored frame that must be exactly size bytes, into dst when it is
// room for them (len 0, cap size), else into memory of its own.
func (c *Codec) decompressFrame(frame []byte, size uint64, dst []byte) ([]byte, error) {
	if size > maxCompressed {
		return nil, fmt.Errorf("compressed event claims %d bytes, more than %d", size, maxCompressed)
	}
	bp := frameBufs.Get().(*[]byte)
	src := append(append((*bp)[:0], zstdMagic...), frame...)
	if dst == nil || len(dst) != 0 || uint64(cap(dst)) != size {
		dst = make([]byte, 0, size)
	}
	out, err := c.decoder().DecodeAll(src, dst)
	if cap(src) <= 64<<10 {
		*bp = src
		frameBufs.Put(bp)
	}
	if err != nil {
		return nil, fmt.Errorf("compressed event: %w", err)
	}
	if uint64(len(out)) != size {
		return nil, fmt.Errorf("compressed event is %d bytes, want %d", len(out), size)
	}
	return out, nil
}
