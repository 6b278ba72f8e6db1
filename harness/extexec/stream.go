package extexec

import (
	"bytes"
	"io"
)

// Reader returns the agent's stdout as a library reads a stream of newline-delimited messages
// (the ACP SDK's connection): the lines Process split and bounded, each with its newline back,
// then io.EOF once stdout ended. It takes Lines, so it is their only reader.
func (p *Process) Reader() io.Reader { return &lineReader{lines: p.lines} }

// Writer returns the agent's stdin as a library writes it: one message per Write (its trailing
// newline optional), sent whole with Send's lock.
func (p *Process) Writer() io.Writer { return lineWriter{p} }

// lineReader reads the lines of Process.Lines as a stream.
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

// lineWriter writes each Write as one line.
type lineWriter struct{ p *Process }

// Write sends one message line to the agent.
func (w lineWriter) Write(b []byte) (int, error) {
	if err := w.p.SendRaw(bytes.TrimRight(b, "\n")); err != nil {
		return 0, err
	}
	return len(b), nil
}
