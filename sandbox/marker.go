package sandbox

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"strconv"
)

// Completion markers are printed by the shell after each command:
// RS "EXO" nonce ";" status US. Well-formed markers never reach output.
const (
	markRS     = 0x1e
	markUS     = 0x1f
	markPrefix = "\x1eEXO"
	maxMarker  = 64
)

// newNonce returns a random hex token that identifies one marker.
func newNonce() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// markerScanner finds completion markers in a byte stream, holding back a possible
// marker split across reads.
type markerScanner struct {
	hold []byte
}

// marker is one parsed completion marker.
type marker struct {
	nonce string
	code  int
}

// scan passes output bytes to emit and calls found for each marker; a marker may span calls.
func (m *markerScanner) scan(p []byte, emit func([]byte), found func(marker)) {
	if len(m.hold) > 0 {
		p = append(m.hold, p...)
		m.hold = nil
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, markRS)
		if i < 0 {
			emit(p)
			return
		}
		if i > 0 {
			emit(p[:i])
			p = p[i:]
		}
		mk, n, state := parseMarker(p)
		switch state {
		case markIncomplete:
			m.hold = append([]byte(nil), p...)
			return
		case markBad:
			emit(p[:1])
			p = p[1:]
		default:
			found(mk)
			p = p[n:]
		}
	}
}

// Parse states of a candidate marker.
const (
	markOK = iota
	markIncomplete
	markBad
)

// parseMarker parses a marker at the start of p (which begins with RS).
func parseMarker(p []byte) (marker, int, int) {
	lim := min(len(p), maxMarker)
	pre := min(lim, len(markPrefix))
	if string(p[:pre]) != markPrefix[:pre] {
		return marker{}, 0, markBad
	}
	if pre < len(markPrefix) {
		return marker{}, 0, markIncomplete
	}
	end := bytes.IndexByte(p[:lim], markUS)
	body := p[len(markPrefix):lim]
	if end >= 0 {
		body = p[len(markPrefix):end]
	}
	if !validMarkerBody(body, end >= 0) {
		return marker{}, 0, markBad
	}
	if end < 0 {
		if lim == maxMarker {
			return marker{}, 0, markBad
		}
		return marker{}, 0, markIncomplete
	}
	nonce, code, _ := bytes.Cut(body, []byte{';'})
	c, _ := strconv.Atoi(string(code))
	return marker{nonce: string(nonce), code: c}, end + 1, markOK
}

// validMarkerBody checks "hex;digits", allowing a prefix of it when not complete.
func validMarkerBody(b []byte, complete bool) bool {
	semi := bytes.IndexByte(b, ';')
	hexPart, num := b, []byte(nil)
	if semi >= 0 {
		hexPart, num = b[:semi], b[semi+1:]
	}
	for _, c := range hexPart {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return false
		}
	}
	if complete {
		return semi > 0 && len(num) > 0
	}
	return true
}
