package secrets

import (
	"sort"
)

// MinRedactLen is the shortest value the Redactor looks for. Shorter values
// (a PIN, "true", a port number) would match too much ordinary text, so
// they are not redacted: keep secrets at least this long.
const MinRedactLen = 6

// MinPartial is the shortest fragment of a secret (or of one of its encodings) redacted where a
// text is cut: a text (or stream) that ends with the first MinPartial or more bytes of a value,
// or a text that starts with its last MinPartial or more bytes, has the fragment redacted.
const MinPartial = MinRedactLen

// pattern is one byte string to replace and its label.
type pattern struct {
	text  string
	label string
}

// Redactor replaces secret values and their encodings with ‹secret:NAME›.
// It is immutable and safe for concurrent use; build a new one when the
// secrets change.
type Redactor struct {
	all     []pattern       // every pattern, longest first
	byFirst [256][]pattern  // candidates by first byte, longest first
	pairs   [1 << 10]uint64 // bitset of the patterns' first two bytes, a fast filter
	longest int
	names   []string
}

// Label returns the text that stands for a redacted secret.
func Label(name string) string { return "‹secret:" + name + "›" }

// NewRedactor builds a redactor from secret values by name. Values shorter
// than MinRedactLen bytes are ignored (see MinRedactLen).
func NewRedactor(values map[string][]byte) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	var all []pattern
	for name, v := range values {
		if len(v) < MinRedactLen {
			continue
		}
		r.names = append(r.names, name)
		for _, text := range variants(v) {
			if !seen[text] {
				seen[text] = true
				all = append(all, pattern{text: text, label: Label(name)})
			}
		}
	}
	sort.Strings(r.names)
	sort.SliceStable(all, func(i, j int) bool { return len(all[i].text) > len(all[j].text) })
	r.all = all
	for _, p := range all {
		r.byFirst[p.text[0]] = append(r.byFirst[p.text[0]], p)
		pair := uint16(p.text[0])<<8 | uint16(p.text[1])
		r.pairs[pair>>6] |= 1 << (pair & 63)
		r.longest = max(r.longest, len(p.text))
	}
	return r
}

// Names returns the names of the secrets the redactor looks for.
func (r *Redactor) Names() []string { return append([]string(nil), r.names...) }

// Longest returns the length of the longest pattern: a stream holds back at
// most Longest()-1 bytes.
func (r *Redactor) Longest() int { return r.longest }

// String returns s with every secret redacted, including a fragment of one where the text was
// cut (see MinPartial).
func (r *Redactor) String(s string) string {
	if r.longest == 0 {
		return s
	}
	out, _ := r.scan(nil, s, true, true)
	return string(out)
}

// Bytes returns b with every secret redacted, as a new slice.
func (r *Redactor) Bytes(b []byte) []byte {
	out, _ := r.scan(nil, string(b), true, true)
	return out
}

// Contains reports whether s holds any secret or encoding of one.
func (r *Redactor) Contains(s string) bool {
	for i := 0; i < len(s); i++ {
		if m, _ := r.matchAt(s[i:], true); m.n > 0 {
			return true
		}
	}
	return false
}
