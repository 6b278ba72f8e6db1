package termsafe

import "unicode/utf8"

// control handles a C0 control byte (or DEL, or a stray byte >= 0x80) in text.
func (s *Sanitizer) control(b byte) {
	switch b {
	case 0x1b:
		s.state = stEsc
	case '\n':
		s.pendingCR = false
		s.out = append(s.out, '\n')
		s.lineStart = len(s.out)
	case '\r':
		switch {
		case s.mode == Display:
			s.out = append(s.out, '\r')
		case s.mode == Screen:
			s.pendingCR = true // carriage returns in a row move the cursor once.
		default:
			s.flushCR()
			s.pendingCR = true
		}
	case '\t':
		s.flushCR()
		if s.mode == Screen {
			s.out = append(s.out, tabSpaces...)
		} else {
			s.out = append(s.out, '\t')
		}
	default:
		if b >= 0x80 {
			s.emitRune(utf8.RuneError)
		}
	}
}

// flushCR applies a carriage return that was not followed by a newline: Text turns it into a
// newline, Screen drops the line written so far (a truncation, so a line redrawn n times costs
// what its bytes cost, not n copies of it).
func (s *Sanitizer) flushCR() {
	if !s.pendingCR {
		return
	}
	s.pendingCR = false
	if s.mode == Screen {
		s.out = s.out[:s.lineStart]
		return
	}
	s.out = append(s.out, '\n')
	s.lineStart = len(s.out)
}

// escape handles the byte after ESC.
func (s *Sanitizer) escape(b byte) {
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
func (s *Sanitizer) csiByte(b byte) {
	switch {
	case b >= 0x40 && b <= 0x7e:
		s.state = stText
		if b == 'm' && s.mode.keepsSGR() && !s.csiBad {
			s.flushCR()
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
