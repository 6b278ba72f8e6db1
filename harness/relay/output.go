package relay

import (
	"encoding/binary"
	"sync"
	"time"
)

// The command's stdout and stderr reach the client in large frames: a command that prints line
// by line (exo log --json, 80k lines) would otherwise cost one frame, one system call in the
// daemon and one in the client per line. Output waits in the batch until it holds batchSize
// bytes, the command reads stdin or ends, or batchDelay has passed since the batch's first
// byte, so a live stream (exo run, exo tail) still shows within a few milliseconds.
const (
	batchSize  = 256 << 10
	batchDelay = 2 * time.Millisecond
)

// batch holds the command's output not yet sent, framed already (a frame per run of one
// stream, so stdout and stderr keep their order).
type batch struct {
	s       *session
	mu      sync.Mutex
	buf     []byte
	last    int // offset of the last frame's header in buf, -1 for none
	timer   *time.Timer
	armed   bool // the timer will flush
	err     error
	sending []byte // the buffer being written, given back after the write
}

func newBatch(s *session) *batch {
	return &batch{s: s, last: -1}
}

// write adds p to the batch as output of kind, sending the batch once it is full.
func (b *batch) write(kind byte, p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return 0, b.err
	}
	n := len(p)
	for len(p) > 0 {
		if b.last >= 0 && b.buf[b.last] == kind {
			// Extend the last frame.
			have := int(binary.BigEndian.Uint32(b.buf[b.last+1 : b.last+5]))
			take := min(len(p), MaxFrame-have)
			if take > 0 {
				b.buf = append(b.buf, p[:take]...)
				binary.BigEndian.PutUint32(b.buf[b.last+1:b.last+5], uint32(have+take))
				p = p[take:]
				if len(b.buf) >= batchSize {
					if err := b.flushLocked(); err != nil {
						return n - len(p), err
					}
				}
				continue
			}
		}
		b.last = len(b.buf)
		b.buf = append(b.buf, kind, 0, 0, 0, 0)
	}
	if len(b.buf) >= batchSize {
		if err := b.flushLocked(); err != nil {
			return n, err
		}
	}
	if len(b.buf) > 0 && !b.armed {
		b.armed = true
		if b.timer == nil {
			b.timer = time.AfterFunc(batchDelay, b.timed)
		} else {
			b.timer.Reset(batchDelay)
		}
	}
	return n, nil
}

// timed sends what the batch holds when its delay has passed.
func (b *batch) timed() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.armed = false
	_ = b.flushLocked()
}

// flush sends what the batch holds now: before the exit code, a request for stdin, or a read
// of stdin that waits (a prompt must show before the command waits for its answer).
func (b *batch) flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

// stop flushes and stops the timer: nothing is written after.
func (b *batch) stop() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.timer != nil {
		b.timer.Stop()
	}
	b.armed = false
	return b.flushLocked()
}

func (b *batch) flushLocked() error {
	if b.err != nil {
		return b.err
	}
	if len(b.buf) == 0 {
		return nil
	}
	out := b.buf
	b.buf, b.last = b.sending[:0], -1
	b.s.wmu.Lock()
	_, err := b.s.conn.Write(out)
	b.s.wmu.Unlock()
	b.sending = out
	if err != nil {
		b.err = err
	}
	return err
}

// batchWriter is the command's stdout or stderr.
type batchWriter struct {
	b    *batch
	kind byte
}

// Write adds p to the batch.
func (w batchWriter) Write(p []byte) (int, error) { return w.b.write(w.kind, p) }
