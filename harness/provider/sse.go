package provider

import (
	"bufio"
	"bytes"
	"io"
)

// SSEReader reads server-sent events from a body: one event per Next, its
// data lines joined by "\n". It allocates only when an event spans several
// data lines; Data is valid until the next call. It is exo's one SSE
// splitter: the providers read their streams with it, and the external
// executors' endpoint taps the answers it relays with it.
type SSEReader struct {
	scn  *bufio.Scanner
	data []byte
	err  error
}

// NewSSEReader reads events from r; lines may be up to 16 MiB (a longer one
// ends the reading with bufio.ErrTooLong).
func NewSSEReader(r io.Reader) *SSEReader {
	scn := bufio.NewScanner(r)
	scn.Buffer(make([]byte, 0, 64<<10), 16<<20)
	return &SSEReader{scn: scn}
}

// Next advances to the next event with data; false at the end or on error.
func (s *SSEReader) Next() bool {
	s.data = s.data[:0]
	for s.scn.Scan() {
		line := s.scn.Bytes()
		if len(line) == 0 {
			if len(s.data) > 0 {
				return true
			}
			continue
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		if len(name) != 4 || string(name) != "data" {
			continue // event names, ids, retry hints and comments are not needed here
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if len(s.data) > 0 {
			s.data = append(s.data, '\n')
		}
		s.data = append(s.data, value...)
	}
	s.err = s.scn.Err()
	return false // an event without its closing blank line is incomplete: dropped
}

// Data returns the current event's data.
func (s *SSEReader) Data() []byte { return s.data }

// Err returns the read error that ended the stream, if any.
func (s *SSEReader) Err() error { return s.err }
