package extexec

import "bytes"

// sseSplitter cuts a server-sent event stream fed in arbitrary chunks into events and hands each
// event's data (its data lines joined by "\n") to onEvent.
type sseSplitter struct {
	line    []byte
	data    []byte
	onEvent func(data []byte)
}

// Write feeds a chunk of the stream.
func (s *sseSplitter) Write(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.line = append(s.line, p...)
			return
		}
		s.line = append(s.line, p[:i]...)
		p = p[i+1:]
		s.endLine(bytes.TrimSuffix(s.line, []byte("\r")))
		s.line = s.line[:0]
	}
}

// endLine handles one complete line.
func (s *sseSplitter) endLine(line []byte) {
	if len(line) == 0 {
		if len(s.data) > 0 {
			s.onEvent(s.data)
			s.data = s.data[:0]
		}
		return
	}
	name, value, _ := bytes.Cut(line, []byte(":"))
	if string(name) != "data" {
		return
	}
	value = bytes.TrimPrefix(value, []byte(" "))
	if len(s.data) > 0 {
		s.data = append(s.data, '\n')
	}
	s.data = append(s.data, value...)
}
