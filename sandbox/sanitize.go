package sandbox

import "unicode/utf8"

// sanitizer states.
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

// sanitizer turns raw terminal output into safe text as a streaming state machine:
// only printable UTF-8, newlines and tabs pass, plus SGR colour sequences (and carriage
// returns) when keepSGR is set; everything that could act on a terminal is dropped.
// Invalid UTF-8 becomes U+FFFD. Memory is bounded whatever the input.
type sanitizer struct {
	keepSGR   bool
	state     int
	csi       []byte
	csiBad    bool
	strLen    int
	pendingCR bool
	partial   []byte // an incomplete UTF-8 sequence carried to the next write
	out       []byte
}

// newSanitizer returns a sanitizer for the display stream (keepSGR) or model text.
func newSanitizer(keepSGR bool) *sanitizer {
	return &sanitizer{keepSGR: keepSGR, csi: make([]byte, 0, maxCSI)}
}

// isPlain reports whether b passes through unchanged in text state.
func isPlain(b byte) bool { return b >= 0x20 && b < 0x7f }

// feed sanitizes p and returns the output, valid until the next call.
func (s *sanitizer) feed(p []byte) []byte {
	s.out = s.out[:0]
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

// joinPartial completes a UTF-8 sequence split across writes and returns the bytes
// still to process; an invalid sequence gives U+FFFD for its first byte, and the bytes
// after it are processed again, exactly as if the input had arrived in one piece.
func (s *sanitizer) joinPartial(p []byte) []byte {
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

// rune handles a non-ASCII sequence at the start of p in text state and returns its
// length, or 0 when p holds only the start of a sequence.
func (s *sanitizer) rune(p []byte) int {
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
func (s *sanitizer) emitRune(r rune) {
	s.flushCR()
	s.out = utf8.AppendRune(s.out, r)
}

// maxString bounds an OSC/DCS/APC string; longer ones are abandoned.
const maxString = 4096

// byte advances the state machine by one byte that is not plain text. A newline ends
// any unfinished sequence, so garbage (binary output) never swallows the lines after it.
func (s *sanitizer) byte(b byte) {
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

// control handles a C0 control byte (or DEL, or a stray byte >= 0x80) in text.
func (s *sanitizer) control(b byte) {
	switch b {
	case 0x1b:
		s.state = stEsc
	case '\n':
		s.pendingCR = false
		s.out = append(s.out, '\n')
	case '\r':
		if s.keepSGR {
			s.out = append(s.out, '\r')
		} else {
			s.flushCR()
			s.pendingCR = true
		}
	case '\t':
		s.flushCR()
		s.out = append(s.out, '\t')
	default:
		if b >= 0x80 {
			s.emitRune(utf8.RuneError)
		}
	}
}

// flushCR turns a carriage return not followed by a newline into a newline (model text only).
func (s *sanitizer) flushCR() {
	if s.pendingCR {
		s.pendingCR = false
		s.out = append(s.out, '\n')
	}
}

// escape handles the byte after ESC.
func (s *sanitizer) escape(b byte) {
	switch {
	case b == '[':
		s.state, s.csi, s.csiBad = stCSI, s.csi[:0], false
	case b == ']' || b == 'P' || b == 'X' || b == '^' || b == '_':
		s.state, s.strLen = stString, 0
	case b >= 0x20 && b <= 0x2f:
		s.state = stEscInter
	case b == 0x1b:
		s.state = stEsc
	default:
		s.state = stText // two-byte sequences such as ESC 7 or ESC c are dropped.
	}
}

// csiByte collects a CSI sequence and emits it only if it is a well-formed SGR.
func (s *sanitizer) csiByte(b byte) {
	switch {
	case b >= 0x40 && b <= 0x7e:
		s.state = stText
		if b == 'm' && s.keepSGR && !s.csiBad {
			s.out = append(s.out, 0x1b, '[')
			s.out = append(s.out, s.csi...)
			s.out = append(s.out, 'm')
		}
	case b == 0x1b:
		s.state = stEsc
	case (b >= '0' && b <= '9') || b == ';' || b == ':':
		if len(s.csi) < maxCSI {
			s.csi = append(s.csi, b)
		} else {
			s.csiBad = true
		}
	case b >= 0x20 && b <= 0x3f:
		s.csiBad = true // private markers (?, <, =, >) and intermediates: never SGR we pass.
	default:
		// control bytes inside CSI are ignored, as terminals do.
	}
}
