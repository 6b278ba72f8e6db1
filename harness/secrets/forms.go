package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
)

// The forms of a value the Redactor catches (see variants). Each is a byte string found as is;
// nothing is decoded, so a form not listed here (reversed, rot13, compressed, another
// wrapping width) is not caught.
const (
	// minEncodedLen is the shortest aligned base64 fragment looked for inside a longer base64
	// text; shorter fragments would match by chance.
	minEncodedLen = 8
	// hexWrap is the width xxd -p wraps hex at.
	hexWrap = 60
)

// base64Wraps are the widths base64 tools wrap at: openssl base64 (64), coreutils base64 and
// MIME (76).
var base64Wraps = []int{64, 76}

// variants lists the forms of a value to look for:
//   - the value itself;
//   - JSON-escaped, as Go writes it (<, > and & as \u003c…) and as other encoders do (those
//     left as they are), and escaped twice (JSON inside a JSON string);
//   - URL-encoded: as a query component (space as +), as a path segment, and with every byte
//     but the unreserved ones encoded (RFC 3986, Python's quote(safe=""), and JavaScript's
//     encodeURIComponent, which keeps !*'() as well);
//   - hex, lower and upper case, and lower case wrapped at 60 columns (xxd -p);
//   - base64 in the standard and URL alphabets, padded and not, plus the whole 3-byte groups
//     it yields at each of the three alignments inside a longer base64 text (so
//     "echo $SECRET | base64" is caught too), and a long value's encoding wrapped at 64 or 76
//     columns by \n or \r\n (a terminal's line end) as base64 tools print it when it starts
//     a line.
func variants(v []byte) []string {
	lower := hex.EncodeToString(v)
	out := []string{string(v), strings.ToUpper(lower), lower, wrap(lower, hexWrap, "\n"), wrap(lower, hexWrap, "\r\n")}
	out = append(out, jsonForms(string(v))...)
	out = append(out, url.QueryEscape(string(v)), url.PathEscape(string(v)), percentEncode(v, "-._~"), percentEncode(v, "-._~!*'()"))
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		out = append(out, enc.EncodeToString(v), enc.WithPadding(base64.NoPadding).EncodeToString(v))
		for shift := 0; shift < 3; shift++ {
			rest := v[shift:]
			rest = rest[:len(rest)/3*3]
			if s := enc.EncodeToString(rest); len(s) >= minEncodedLen {
				out = append(out, s)
			}
		}
		whole := enc.EncodeToString(v[:len(v)/3*3])
		for _, width := range base64Wraps {
			out = append(out, wrap(whole, width, "\n"), wrap(whole, width, "\r\n"))
		}
	}
	return out
}

// jsonForms returns s JSON-escaped (without the quotes) with and without HTML escaping, and
// escaped twice.
func jsonForms(s string) []string {
	once := jsonEscape(s, true)
	return []string{once, jsonEscape(s, false), jsonEscape(once, true), jsonEscape(jsonEscape(s, false), false)}
}

// jsonEscape returns s as a JSON string body (no quotes).
func jsonEscape(s string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if enc.Encode(s) != nil {
		return s
	}
	j := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	return string(j[1 : len(j)-1])
}

// wrap breaks s into lines of width characters ended by nl, as base64 and hex tools print; s
// is returned unchanged when it fits on one line.
func wrap(s string, width int, nl string) string {
	var b strings.Builder
	for len(s) > width {
		b.WriteString(s[:width])
		b.WriteString(nl)
		s = s[width:]
	}
	b.WriteString(s)
	return b.String()
}

// percentEncode encodes every byte of v as %XX except letters, digits and those in keep.
func percentEncode(v []byte, keep string) string {
	const digits = "0123456789ABCDEF"
	var b strings.Builder
	for _, c := range v {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(digits[c>>4])
		b.WriteByte(digits[c&15])
	}
	return b.String()
}
