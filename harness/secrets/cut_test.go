package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// forms returns the value in every form the redactor catches, by name (README lists them).
func forms(v []byte) map[string]string {
	j, _ := json.Marshal(string(v))
	jj, _ := json.Marshal(string(j[1 : len(j)-1]))
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	enc.Encode(string(v))
	b64 := base64.StdEncoding.EncodeToString(v)
	return map[string]string{
		"raw": string(v), "json": string(j[1 : len(j)-1]), "json-noescape": strings.TrimSpace(raw.String())[1 : len(strings.TrimSpace(raw.String()))-1],
		"json-twice": string(jj[1 : len(jj)-1]), "url-query": url.QueryEscape(string(v)), "url-path": url.PathEscape(string(v)),
		"hex": hex.EncodeToString(v), "HEX": strings.ToUpper(hex.EncodeToString(v)),
		"base64": b64, "base64-raw": base64.RawStdEncoding.EncodeToString(v),
		"base64url": base64.URLEncoding.EncodeToString(v), "base64url-raw": base64.RawURLEncoding.EncodeToString(v),
	}
}

// leaks reports whether text holds a run of n or more bytes of form.
func leaks(text, form string, n int) bool {
	for i := 0; i+n <= len(form); i++ {
		if strings.Contains(text, form[i:i+n]) {
			return true
		}
	}
	return false
}

// TestRedactCutAtEveryOffset cuts a text holding the secret (in each form) at every offset, as
// a head/tail or a cap does, and redacts the pieces: no piece keeps MinPartial bytes of it.
func TestRedactCutAtEveryOffset(t *testing.T) {
	v := []byte(`sk-test-"7f3a9c2e<41d8>4b6fa0c5e9d2b7a14f68`)
	r := NewRedactor(map[string][]byte{"KEY": v})
	n := 0
	defer func() { t.Logf("%d cuts of %d forms", n, len(forms(v))) }()
	for name, f := range forms(v) {
		text := "before: " + f + " :after"
		for cut := 0; cut <= len(text); cut++ {
			n++
			head, tail := r.String(text[:cut]), r.String(text[cut:])
			if leaks(head, f, MinPartial) || leaks(tail, f, MinPartial) {
				t.Fatalf("%s cut at %d: %q | %q", name, cut, head, tail)
			}
		}
	}
}

// TestRedactStreamCutAtEveryOffset streams the secret in every form split at every offset and
// ends the stream early at every offset (a command killed mid-print): what comes out never
// holds MinPartial bytes of it, and a whole stream equals the whole text redacted.
func TestRedactStreamCutAtEveryOffset(t *testing.T) {
	v := []byte("sk-test-7f3a9c2e41d84b6fa0c5e9d2b7a14f68")
	r := NewRedactor(map[string][]byte{"KEY": v})
	n := 0
	defer func() { t.Logf("%d splits and as many early ends of %d forms", n, len(forms(v))) }()
	for name, f := range forms(v) {
		text := "out: " + f + " done"
		for split := 0; split <= len(text); split++ {
			n++
			s := r.NewStream()
			got := string(s.Next([]byte(text[:split]))) + string(s.Next([]byte(text[split:]))) + string(s.Flush())
			if got != r.String(text) || leaks(got, f, MinPartial) {
				t.Fatalf("%s split at %d: %q", name, split, got)
			}
			s = r.NewStream()
			cutShort := string(s.Next([]byte(text[:split]))) + string(s.Flush())
			if leaks(cutShort, f, MinPartial) {
				t.Fatalf("%s ended at %d: %q", name, split, cutShort)
			}
		}
	}
}

// TestRedactFragmentsAtCutMarks joins a head and a tail cut out of a text holding the secret
// (in each form) around exo's cut marks, as a capture, a cap or a tool does before the whole is
// redacted: no fragment of MinPartial bytes survives, whole or streamed in pieces.
func TestRedactFragmentsAtCutMarks(t *testing.T) {
	v := []byte("sk-test-7f3a9c2e41d84b6fa0c5e9d2b7a14f68")
	r := NewRedactor(map[string][]byte{"KEY": v})
	n := 0
	defer func() { t.Logf("%d head+mark+tail joins of %d forms", n, len(forms(v))) }()
	for name, f := range forms(v) {
		text := "before: " + f + " :after"
		for a := 0; a <= len(text); a += 3 {
			for _, join := range []string{"…", "\n[… 1234 bytes cut of 5678; full output in artifact ab12 …]\n"} {
				n++
				b := min(len(text), a+len(f)/2)
				cut := text[:a] + join + text[b:]
				got := r.String(cut)
				if leaks(strings.ReplaceAll(got, join, "|"), f, MinPartial) {
					t.Fatalf("%s cut %d..%d with %q: %q", name, a, b, join, got)
				}
				s := r.NewStream()
				var streamed []byte
				for i := 0; i < len(cut); i += 5 {
					streamed = append(streamed, s.Next([]byte(cut[i:min(len(cut), i+5)]))...)
				}
				streamed = append(streamed, s.Flush()...)
				if string(streamed) != got && !strings.HasPrefix(got, "‹") {
					t.Fatalf("%s cut %d..%d: streamed %q, whole %q", name, a, b, streamed, got)
				}
			}
		}
	}
}

// TestCutMarksDoNotOverRedact checks that ordinary text around "…" is left alone.
func TestCutMarksDoNotOverRedact(t *testing.T) {
	r := NewRedactor(map[string][]byte{"KEY": []byte("sk-test-7f3a9c2e41d84b6fa0c5e9d2b7a14f68")})
	for _, s := range []string{"wait… sk-test keys look like sk-…", "sk-te…st", "[… 10 bytes cut …]\nok", "a…b…c"} {
		if got := r.String(s); got != s {
			t.Errorf("%q became %q", s, got)
		}
	}
}
