package cli

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"time"
	"unicode/utf8"

	"exo/harness/api"
	"exo/views/plaintext"
)

// eventJSON writes events as `exo log --json` prints them, the bytes plaintext.WriteJSON would
// write through termSafe, at a fraction of its cost: encoding/json reflects over the envelope
// and re-validates and compacts each payload byte by byte, and termSafe copies and scans every
// byte again, which was most of the daemon's time for the 80,000 events of a 20k-turn session.
// An event whose names need escaping or whose payload is not plainly compact JSON, or holds a
// byte termSafe could change, goes through plaintext.WriteJSON and termSafe as before.
type eventJSON struct {
	// raw takes the plain lines (no control character, DEL or C1 range): termSafe passes them
	// unchanged, so they go past it. It is flushed before a line goes to safe.
	raw *bufio.Writer
	// safe is the command's stdout (through termSafe).
	safe io.Writer
	line []byte
}

// write writes one event as a JSON line.
func (j *eventJSON) write(ev api.Event) error {
	line, ok := appendEventJSON(j.line[:0], ev)
	j.line = line
	if ok {
		_, err := j.raw.Write(plaintext.UnescapeHTML(line))
		return err
	}
	if err := j.raw.Flush(); err != nil {
		return err
	}
	return plaintext.WriteJSON(j.safe, ev, "")
}

// appendEventJSON appends ev as one JSON line to b, as encoding/json encodes it (HTML not
// escaped); ok is false when ev needs the general encoder.
func appendEventJSON(b []byte, ev api.Event) (_ []byte, ok bool) {
	if !plainString(ev.Branch) || !plainString(ev.Type) || !plainString(ev.Actor) || !compactJSON(ev.Data) {
		return b, false
	}
	b = append(b, `{"branch":"`...)
	b = append(b, ev.Branch...)
	b = append(b, `","seq":`...)
	b = appendUint(b, ev.Seq)
	b = append(b, `,"type":"`...)
	b = append(b, ev.Type...)
	b = append(b, `","time":"`...)
	b, ok = appendTimeUTC(b, ev.Time)
	if !ok {
		var err error
		if b, err = ev.Time.AppendText(b); err != nil {
			return b, false // a year outside 0..9999: encoding/json says why
		}
	}
	b = append(b, `","actor":"`...)
	b = append(b, ev.Actor...)
	b = append(b, `","data":`...)
	if ev.Data == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, ev.Data...)
	}
	b = append(b, `,"hash":"`...)
	b = hex.AppendEncode(b, ev.Hash[:])
	b = append(b, "\"}\n"...)
	return b, true
}

// appendTimeUTC appends t as AppendText does (RFC 3339 with nanoseconds, trailing zeros
// dropped) when t is in UTC in the years 0..9999, which stored events' times are; ok is false
// for any other time, which it leaves to AppendText.
func appendTimeUTC(b []byte, t time.Time) (_ []byte, ok bool) {
	if t.Location() != time.UTC {
		return b, false
	}
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return b, false
	}
	h, mi, sec := t.Clock()
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+mo/10), byte('0'+mo%10), '-', byte('0'+d/10), byte('0'+d%10), 'T',
		byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':', byte('0'+sec/10), byte('0'+sec%10))
	if ns := t.Nanosecond(); ns != 0 {
		var f [10]byte
		f[0] = '.'
		for i := 9; i >= 1; i-- {
			f[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for f[n-1] == '0' {
			n--
		}
		b = append(b, f[:n]...)
	}
	return append(b, 'Z'), true
}

func appendUint(b []byte, n uint64) []byte {
	var d [20]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(b, d[i:]...)
}

// plainString says whether s is printable ASCII without a quote or backslash: JSON as it is.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// compactJSON says whether raw is what encoding/json would print for it unchanged, and text
// termSafe passes unchanged: nil (null), or an object or array of valid UTF-8 with no white
// space outside its strings, its strings closed, its brackets balanced, and none of the bytes
// encoding/json or termSafe rewrite (control characters, DEL, the 0xc2 lead byte of the C1
// range, U+2028, U+2029). Anything else takes the general path, which compacts it or reports it
// as invalid, as before. Payloads are encoded by exo (json.Marshal) when appended and covered by
// the hash chain (exo verify), so the scan checks their shape, not their grammar.
func compactJSON(raw json.RawMessage) bool {
	if raw == nil {
		return true
	}
	if len(raw) < 2 || (raw[0] != '{' && raw[0] != '[') || !utf8.Valid(raw) ||
		bytes.Contains(raw, lineSep) || bytes.Contains(raw, paraSep) {
		return false
	}
	depth, n := 0, len(raw)
	for i := 0; i < n; i++ {
		c := raw[i]
		if c == '"' {
			// A string: skip to its closing quote, eight plain ASCII bytes at a time.
			for i++; ; i++ {
				for i+8 <= n && plainWord(binary.LittleEndian.Uint64(raw[i:])) {
					i += 8
				}
				for i < n && !inString[raw[i]] {
					i++
				}
				if i >= n {
					return false
				}
				if c := raw[i]; c == '"' {
					break
				} else if c != '\\' {
					return false
				}
				i++ // the escaped byte
			}
			continue
		}
		switch {
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 && i != n-1 {
				return false
			}
		case outside[c]:
			return false
		}
	}
	return depth == 0
}

// plainWord says whether none of the eight bytes of w ends a run of plain string bytes (see
// inString) or is outside ASCII: a control character, the quote, the backslash, DEL or a byte
// of 0x80 and above. (A word it refuses is scanned byte by byte.)
func plainWord(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	less := (w - ones*0x20) &^ w & highs        // a byte below 0x20
	more := ((w + ones*(127-0x7e)) | w) & highs // a byte above 0x7e
	quote := w ^ (ones * '"')
	quote = (quote - ones) &^ quote & highs // a byte equal to '"'
	bs := w ^ (ones * '\\')
	bs = (bs - ones) &^ bs & highs // a byte equal to '\\'
	return less|more|quote|bs == 0
}

// inString marks the bytes that end a run of plain string bytes: the quote, the backslash, and
// those compactJSON refuses. outside marks the bytes refused outside strings.
var inString, outside = func() (in, out [256]bool) {
	for c := range 256 {
		bad := c < 0x20 || c == 0x7f || c == 0xc2
		in[c] = bad || c == '"' || c == '\\'
		out[c] = bad || c == ' ' || c >= 0x80
	}
	return in, out
}()

// lineSep and paraSep are U+2028 and U+2029, which encoding/json escapes in strings.
var lineSep, paraSep = []byte("\u2028"), []byte("\u2029")
