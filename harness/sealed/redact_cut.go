package sealed

import (
	"os"
	"strings"
	"unicode/utf8"
)

// RedactCut returns text with secret values redacted and then cut to at most n bytes (on a rune
// boundary), with "…" when it was cut. Redacting before cutting is what keeps a cut from
// leaving the first part of a secret behind; every cut exo makes to text goes through it.
func (sc *Secrets) RedactCut(text string, n int) string {
	text = sc.Redact(text)
	if len(text) <= n {
		return text
	}
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n] + "…"
}

// RedactedTail returns about the last n bytes of a file, redacted: it reads enough more before
// them that a secret straddling the start is whole when redacted, then cuts the redacted text.
func (sc *Secrets) RedactedTail(f *os.File, n int64) string {
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	margin := int64(0)
	if r := sc.redactor(); r != nil {
		margin = int64(r.Longest())
	}
	from := max(0, fi.Size()-n-margin)
	buf := make([]byte, fi.Size()-from)
	k, _ := f.ReadAt(buf, from)
	text := sc.Redact(strings.ToValidUTF8(string(buf[:k]), "\uFFFD"))
	if int64(len(text)) <= n {
		return text
	}
	cut := len(text) - int(n)
	for cut < len(text) && !utf8.RuneStart(text[cut]) {
		cut++
	}
	return text[cut:]
}

// Redact replaces sealed secret values (and their base64/hex/JSON forms) in text with
// ‹secret:NAME›.
func (sc *Secrets) Redact(text string) string {
	if r := sc.redactor(); r != nil {
		return r.String(text)
	}
	return text
}
