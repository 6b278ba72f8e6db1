package termsafe

import "unicode/utf8"

// parser states.
const (
	stText     = iota
	stEsc      // after ESC
	stCSI      // inside ESC [ ... final
	stString   // inside OSC/DCS/SOS/PM/APC, until BEL or ST
	stStrEsc   // ESC seen inside a string (maybe ST)
	stEscInter // ESC followed by intermediate bytes, until a final byte
)

// maxCSI bounds the bytes of one CSI sequence kept while deciding whether it is SGR.
const maxCSI = 64

// maxString bounds an OSC/DCS/APC string; longer ones are abandoned.
const maxString = 4096

// Sanitizer turns raw terminal output into safe text as a streaming state machine: only
// printable UTF-8 and newlines pass, plus what its Mode keeps; everything that could act on a
// terminal is dropped. C0 and C1 controls go, invalid UTF-8 becomes U+FFFD, and a sequence
// left open is ended by a newline, so binary garbage never swallows the lines after it. Its
// memory is bounded whatever the input, and its time is linear in it. A Sanitizer is not
// safe for concurrent use.
type Sanitizer struct {
	mode      Mode
	state     int
	csi       []byte
	csiBad    bool
	strLen    int
	pendingCR bool
	lineStart int    // where the current line starts in out (Screen's carriage return)
	partial   []byte // an incomplete UTF-8 sequence carried to the next Feed
	out       []byte
}

// New returns a Sanitizer for mode.
func New(mode Mode) *Sanitizer {
	return &Sanitizer{mode: mode, csi: make([]byte, 0, maxCSI)}
}

// isPlain reports whether b passes through unchanged in text state.
func isPlain(b byte) bool { return b >= 0x20 && b < 0x7f }

// Feed sanitizes the next chunk p and returns its output, valid until the next call. A UTF-8
// sequence split across chunks is decoded as if it had come in one piece; for Display and Text
// the output does not depend on how the input is cut.
func (s *Sanitizer) Feed(p []byte) []byte {
	s.out, s.lineStart = s.out[:0], 0
	if len(s.partial) > 0 {
		p = s.joinPartial(p)
	}
	for i := 0; i < len(p); {
		if s.state == stText {
			j := i
			for j < len(p) && isPlain(p[j]) {
				j++
			}
			if j > i {
				s.flushCR()
				s.out = append(s.out, p[i:j]...)
				i = j
				continue
			}
			if p[i] >= 0x80 {
				n := s.rune(p[i:])
				if n == 0 {
					s.partial = append(s.partial[:0], p[i:]...)
					return s.out
				}
				i += n
				continue
			}
		}
		s.byte(p[i])
		i++
	}
	return s.out
}

// End returns what an incomplete UTF-8 sequence left at the end of the input becomes: one
// U+FFFD per byte, as a decoder reading the whole input would give. Call it once the input is
// over.
func (s *Sanitizer) End() []byte {
	s.out, s.lineStart = s.out[:0], 0
	s.end()
	return s.out
}

// end appends what End returns to the output so far.
func (s *Sanitizer) end() {
	for range s.partial {
		s.emitRune(utf8.RuneError)
	}
	s.partial = s.partial[:0]
}

// joinPartial completes a UTF-8 sequence split across chunks and returns the bytes still to
// process; an invalid sequence gives U+FFFD for its first byte, and the bytes after it are
// processed again, exactly as if the input had arrived in one piece.
func (s *Sanitizer) joinPartial(p []byte) []byte {
	carried := len(s.partial)
	buf := append(s.partial, p[:min(utf8.UTFMax-carried, len(p))]...)
	s.partial = s.partial[:0]
	if !utf8.FullRune(buf) {
		s.partial = buf
		return nil
	}
	r, size := utf8.DecodeRune(buf)
	if r == utf8.RuneError && size == 1 {
		s.emitRune(utf8.RuneError)
		return append(append([]byte(nil), buf[1:carried]...), p...)
	}
	s.rune(buf[:size])
	return p[size-carried:]
}

// rune handles a non-ASCII sequence at the start of p in text state and returns its length,
// or 0 when p holds only the start of a sequence.
func (s *Sanitizer) rune(p []byte) int {
	if !utf8.FullRune(p) {
		return 0
	}
	r, n := utf8.DecodeRune(p)
	if r >= 0x80 && r < 0xa0 { // C1 controls, e.g. 8-bit CSI.
		return n
	}
	s.emitRune(r)
	return n
}

// emitRune appends one rune of text.
func (s *Sanitizer) emitRune(r rune) {
	s.flushCR()
	s.out = utf8.AppendRune(s.out, r)
}

// byte advances the state machine by one byte that is not plain text. A newline ends any
// unfinished sequence.
func (s *Sanitizer) byte(b byte) {
	if b == '\n' && s.state != stText {
		s.state = stText
	}
	switch s.state {
	case stText:
		s.control(b)
	case stEsc:
		s.escape(b)
	case stCSI:
		s.csiByte(b)
	case stString:
		s.strLen++
		switch {
		case b == 0x07 || s.strLen > maxString:
			s.state = stText
		case b == 0x1b:
			s.state = stStrEsc
		}
	case stStrEsc:
		if b == '\\' {
			s.state = stText
		} else {
			s.state = stString
		}
	case stEscInter:
		if b >= 0x30 && b <= 0x7e {
			s.state = stText
		}
	}
}
