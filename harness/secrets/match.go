package secrets

import "strings"

// Cut marks: what exo writes where it cut a text ("…", or a "[… N bytes cut …]" line between a
// head and a tail). A fragment of a secret right before or right after one is redacted, since
// a cut made before redaction would otherwise leave it behind.
var (
	marksAfterFragment  = []string{"…", "\n[…"}
	marksBeforeFragment = []string{"…]\n", "…"}
)

// longestMark is the length of the longest cut mark: only that close to the end of a chunk can
// one be unfinished.
const longestMark = len("\n[…")

// match is a redaction found at the start of a text: n bytes that become label.
type match struct {
	n     int
	label string
}

// scan appends the redacted form of s to out. Unless final, it stops at the first position
// where a pattern (or a fragment after a cut mark) could begin but s ends too soon to tell, and
// returns that position; everything before it is settled. When final, a fragment cut at the
// end is redacted, and with atStart a fragment cut at the start too.
func (r *Redactor) scan(out []byte, s string, final, atStart bool) ([]byte, int) {
	start := 0
	if atStart {
		if n, label := r.leadingFragment(s); n > 0 {
			out, start = append(out, label...), n
		}
	}
	for i := start; i < len(s); {
		i = r.skipPlain(s, i)
		if i == len(s) {
			break
		}
		if mark := markAt(s[i:], marksBeforeFragment); mark > 0 {
			rest := s[i+mark:]
			if !final && len(rest) < r.longest {
				return append(out, s[start:i]...), i
			}
			i += mark
			if n, label := r.leadingFragment(rest); n > 0 {
				out = append(append(out, s[start:i]...), label...)
				i += n
				start = i
			}
			continue
		}
		if !final && len(s)-i < longestMark && partialMark(s[i:], marksBeforeFragment) {
			return append(out, s[start:i]...), i
		}
		m, wait := r.matchAt(s[i:], final)
		if wait {
			return append(out, s[start:i]...), i
		}
		if m.n == 0 {
			i++
			continue
		}
		out = append(append(out, s[start:i]...), m.label...)
		i += m.n
		start = i
	}
	return append(out, s[start:]...), len(s)
}

// markLead is the first byte of every cut mark a fragment may follow ("…" in UTF-8).
const markLead = 0xE2

// skipPlain returns the first position from i on where scan has something to decide: a byte
// that may begin a cut mark, a pair of bytes that begins a pattern, or the last byte (whose
// pair is unknown). Every byte it passes over is one matchAt would pass over (its first two
// bytes begin no pattern, so neither a pattern nor a fragment of one starts there) and one no
// cut mark starts at; the loop is kept tight, as most text is plain.
func (r *Redactor) skipPlain(s string, i int) int {
	for ; i+1 < len(s); i++ {
		c := s[i]
		if c == markLead {
			return i
		}
		pair := uint16(c)<<8 | uint16(s[i+1])
		if r.pairs[pair>>6]&(1<<(pair&63)) != 0 {
			return i
		}
	}
	return i
}

// matchAt returns the redaction at the start of s: the longest whole pattern, or a fragment of
// one (MinPartial bytes or more) that a cut mark follows, or, when final, that the text ends
// with. Unless final, it reports wait when s ends inside a pattern (or inside a cut mark after
// a fragment), since more input could complete it.
func (r *Redactor) matchAt(s string, final bool) (match, bool) {
	if len(s) >= 2 {
		pair := uint16(s[0])<<8 | uint16(s[1])
		if r.pairs[pair>>6]&(1<<(pair&63)) == 0 {
			return match{}, false
		}
	}
	var frag match
	for k := range r.byFirst[s[0]] {
		p := &r.byFirst[s[0]][k]
		if len(s) >= len(p.text) && s[:len(p.text)] == p.text {
			if len(p.text) >= frag.n {
				return match{len(p.text), p.label}, false
			}
			return frag, false
		}
		c := commonPrefix(s, p.text)
		switch {
		case c == len(s) && !final:
			return match{}, true
		case c < MinPartial || c <= frag.n:
		case c == len(s):
			frag = match{c, p.label}
		case markAt(s[c:], marksAfterFragment) > 0:
			frag = match{c, p.label}
		case !final && partialMark(s[c:], marksAfterFragment):
			return match{}, true
		}
	}
	return frag, false
}

// leadingFragment returns the length of the longest last part (MinPartial bytes or more, but
// not all) of a pattern that s starts with, and its label; 0 when there is none.
func (r *Redactor) leadingFragment(s string) (int, string) {
	best, label := 0, ""
	for _, p := range r.all {
		for k := min(len(p.text)-1, len(s)); k >= MinPartial && k > best; k-- {
			if s[:k] == p.text[len(p.text)-k:] {
				best, label = k, p.label
				break
			}
		}
	}
	return best, label
}

// commonPrefix returns how many leading bytes a and b share.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// markAt returns the length of the cut mark s starts with (0: none).
func markAt(s string, marks []string) int {
	if s == "" || s[0] != "…"[0] && s[0] != '\n' {
		return 0
	}
	for _, m := range marks {
		if strings.HasPrefix(s, m) {
			return len(m)
		}
	}
	return 0
}

// partialMark reports whether s is a proper beginning of a cut mark (the rest may follow).
func partialMark(s string, marks []string) bool {
	for _, m := range marks {
		if len(s) < len(m) && strings.HasPrefix(m, s) {
			return true
		}
	}
	return false
}
