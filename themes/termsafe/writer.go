package termsafe

import (
	"fmt"
	"io"
)

// Writer sanitizes everything written through it before passing it on. A sequence or a UTF-8
// character cut by the end of one write is finished by the next, so splitting text never lets
// a piece through, and what it holds between writes is bounded. Screen's carriage return
// reaches back only within one write, so a Writer is for Display and Text.
type Writer struct {
	w io.Writer
	s *Sanitizer
}

// NewWriter returns a Writer passing w the text of mode.
func NewWriter(w io.Writer, mode Mode) *Writer { return &Writer{w: w, s: New(mode)} }

// Write sanitizes p and writes the result; it reports p as written whole.
func (w *Writer) Write(p []byte) (int, error) {
	if out := w.s.Feed(p); len(out) > 0 {
		if _, err := w.w.Write(out); err != nil {
			return 0, fmt.Errorf("termsafe: %w", err)
		}
	}
	return len(p), nil
}
