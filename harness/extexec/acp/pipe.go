package acp

import (
	"bytes"
	"io"

	"exo/harness/extexec"
)

// lineReader is the agent's stdout as the SDK reads it: the lines extexec.Process split, each
// with its newline back.
type lineReader struct {
	lines <-chan []byte
	buf   []byte
}

// Read copies the next line's bytes; it returns io.EOF once stdout ended.
func (r *lineReader) Read(b []byte) (int, error) {
	for len(r.buf) == 0 {
		line, ok := <-r.lines
		if !ok {
			return 0, io.EOF
		}
		r.buf = append(line, '\n')
	}
	n := copy(b, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// lineWriter is the agent's stdin as the SDK writes it: one JSON message per Write.
type lineWriter struct{ p *extexec.Process }

// Write sends one message line to the agent.
func (w lineWriter) Write(b []byte) (int, error) {
	if err := w.p.SendRaw(bytes.TrimRight(b, "\n")); err != nil {
		return 0, err
	}
	return len(b), nil
}
