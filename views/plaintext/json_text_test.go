package plaintext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestUnescapeHTML turns the HTML escapes back into &, < and >, leaves other escapes and an
// escaped backslash before "u0026" alone, and keeps the JSON's meaning.
func TestUnescapeHTML(t *testing.T) {
	for in, want := range map[string]string{
		`{"c":"a \u0026\u0026 b \u003e f \u003c g"}`: `{"c":"a && b > f < g"}`,
		`{"c":"\\u0026 stays"}`:                      `{"c":"\\u0026 stays"}`,
		`{"c":"\\\u0026"}`:                           `{"c":"\\&"}`,
		`{"c":"\u00e9\n\"\u2028"}`:                   `{"c":"\u00e9\n\"\u2028"}`,
		`{"c":"end\u0026"}`:                          `{"c":"end&"}`,
		`plain`:                                      `plain`,
	} {
		got := UnescapeHTML([]byte(in))
		if string(got) != want {
			t.Errorf("UnescapeHTML(%s) = %s, want %s", in, got, want)
			continue
		}
		var a, b any
		if json.Valid([]byte(in)) && (json.Unmarshal([]byte(in), &a) != nil || json.Unmarshal(got, &b) != nil || !jsonEqual(a, b)) {
			t.Errorf("%s changed meaning: %s", in, got)
		}
	}
}

// TestWriteJSONKeepsShellText: a value, and a raw payload stored with Go's HTML escapes, print
// with &, < and > as themselves, one line or indented.
func TestWriteJSONKeepsShellText(t *testing.T) {
	stored, _ := json.Marshal(map[string]string{"command": "make && ./run > out 2>&1 < in"}) // escapes as the log's payloads are
	if !bytes.Contains(stored, []byte(`\u0026`)) {
		t.Fatalf("json.Marshal no longer escapes: %s", stored)
	}
	v := struct {
		Note string          `json:"note"`
		Data json.RawMessage `json:"data"`
	}{"a && b", stored}
	for _, indent := range []string{"", "  "} {
		var buf bytes.Buffer
		if err := WriteJSON(&buf, v, indent); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if strings.Contains(out, `\u00`) || !strings.Contains(out, "make && ./run > out 2>&1 < in") || !strings.Contains(out, `"a && b"`) {
			t.Fatalf("indent %q: %s", indent, out)
		}
		if !json.Valid(buf.Bytes()) || !strings.HasSuffix(out, "}\n") {
			t.Fatalf("indent %q: not one JSON value and a newline: %q", indent, out)
		}
	}
}

// jsonEqual compares decoded JSON values.
func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
