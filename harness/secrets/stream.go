package secrets

import (
	"fmt"
	"io"
)

// Stream redacts text that arrives in chunks (PTY output, model deltas). A
// secret split across chunks is still caught: Next holds back a tail that
// could be the start of a secret (at most Longest()-1 bytes) until the next
// chunk or Flush decides it; Flush redacts a held-back start of a secret of
// MinPartial bytes or more (the stream was cut there). Not safe for
// concurrent use.
type Stream struct {
	r       *Redactor
	pending []byte
	buf     []byte
}

// NewStream starts a chunked redaction.
func (r *Redactor) NewStream() *Stream {
	return &Stream{r: r}
}

// Next takes a chunk and returns the redacted text that is now settled.
func (s *Stream) Next(chunk []byte) []byte {
	if s.r.longest == 0 {
		return chunk
	}
	s.buf = append(append(s.buf[:0], s.pending...), chunk...)
	out, done := s.r.scan(nil, string(s.buf), false, false)
	s.pending = append(s.pending[:0], s.buf[done:]...)
	return out
}

// Flush returns whatever is held back, redacted, and resets the stream.
func (s *Stream) Flush() []byte {
	out, _ := s.r.scan(nil, string(s.pending), true, false)
	s.pending = s.pending[:0]
	return out
}

// Pending returns how many bytes are held back.
func (s *Stream) Pending() int { return len(s.pending) }

// Writer is an io.WriteCloser that redacts what passes through it to an
// underlying writer. Close flushes the held-back tail; it does not close
// the underlying writer.
type Writer struct {
	s *Stream
	w io.Writer
}

// NewWriter returns a redacting writer in front of w.
func (r *Redactor) NewWriter(w io.Writer) *Writer {
	return &Writer{s: r.NewStream(), w: w}
}

// Write redacts p and writes what is settled; it reports len(p) on success.
func (w *Writer) Write(p []byte) (int, error) {
	if out := w.s.Next(p); len(out) > 0 {
		if _, err := w.w.Write(out); err != nil {
			return 0, fmt.Errorf("secrets: redacting writer: %w", err)
		}
	}
	return len(p), nil
}

// Flush writes the held-back tail.
func (w *Writer) Flush() error {
	if out := w.s.Flush(); len(out) > 0 {
		if _, err := w.w.Write(out); err != nil {
			return fmt.Errorf("secrets: redacting writer: %w", err)
		}
	}
	return nil
}

// Close flushes the held-back tail.
func (w *Writer) Close() error { return w.Flush() }
