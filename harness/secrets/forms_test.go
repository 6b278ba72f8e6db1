package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// formsValue has the characters that JSON, URL and HTML escaping change, and is long enough
// that base64 and hex tools wrap it.
var formsValue = []byte(`sk-forms "7f3a/9c2e+41d8=4b6f" <a0c5&e9d2> b7a1?4f68#c0de%d00d_0123456789abcdef`)

// TestRedactEveryForm redacts each caught form whole, in text and in a stream split at every
// offset, and leaves nothing of it.
func TestRedactEveryForm(t *testing.T) {
	r := NewRedactor(map[string][]byte{"KEY": formsValue})
	all := forms(formsValue)
	b64 := base64.StdEncoding.EncodeToString(formsValue[:len(formsValue)/3*3])
	for _, w := range base64Wraps {
		all["base64-wrapped-"+strconv.Itoa(w)] = wrap(b64, w, "\n")
		all["base64-wrapped-crlf-"+strconv.Itoa(w)] = wrap(b64, w, "\r\n")
	}
	all["hex-wrapped"] = wrap(hex.EncodeToString(formsValue), hexWrap, "\n")
	defer func() { t.Logf("%d forms, each split at every offset", len(all)) }()
	for name, f := range all {
		text := "before " + f + " after"
		if got := r.String(text); got != "before ‹secret:KEY› after" && !strings.Contains(name, "wrapped") {
			t.Errorf("%s: %q", name, got)
		} else if leaks(got, strings.ReplaceAll(f, "\n", ""), MinPartial+6) {
			t.Errorf("%s keeps part of the value: %q", name, got)
		}
		for split := 0; split <= len(text); split++ {
			s := r.NewStream()
			got := string(s.Next([]byte(text[:split]))) + string(s.Next([]byte(text[split:]))) + string(s.Flush())
			if got != r.String(text) {
				t.Fatalf("%s split at %d: %q", name, split, got)
			}
		}
	}
}

// TestRedactWhatToolsPrint runs the encoders a program in the sandbox would (base64, xxd,
// od-free hex via xxd -p, python's urllib and json) and redacts their output.
func TestRedactWhatToolsPrint(t *testing.T) {
	r := NewRedactor(map[string][]byte{"KEY": formsValue})
	for _, cmd := range []string{"base64", "base64 -w 0", "openssl base64", "xxd -p", "basenc --base64url",
		"python3 -c 'import sys,urllib.parse;print(urllib.parse.quote_plus(sys.stdin.read()))'",
		"python3 -c 'import sys,urllib.parse;print(urllib.parse.quote(sys.stdin.read(), safe=\"\"))'",
		"python3 -c 'import sys,json;print(json.dumps(sys.stdin.read()))'",
		"node -e 'let s=\"\";process.stdin.on(\"data\",d=>s+=d).on(\"end\",()=>console.log(encodeURIComponent(s)))'",
		"python3 -c 'import sys,json;print(json.dumps(json.dumps(sys.stdin.read())))'",
	} {
		bin := strings.Fields(cmd)[0]
		if _, err := exec.LookPath(bin); err != nil {
			t.Logf("%s is not installed: skipped", bin)
			continue
		}
		c := exec.Command("sh", "-c", cmd)
		c.Stdin = strings.NewReader(string(formsValue))
		out, err := c.Output()
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		got := r.String(string(out))
		if !strings.Contains(got, Label("KEY")) || strings.Contains(got, string(formsValue[:MinPartial])) {
			t.Errorf("%s printed %q, redacted to %q", cmd, out, got)
		}
	}
}
