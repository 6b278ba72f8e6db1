package plaintext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// htmlEscapes are the escapes Go's JSON encoder writes for &, < and > by default, with the
// character each stands for.
var htmlEscapes = map[string]byte{"0026": '&', "003c": '<', "003e": '>', "003C": '<', "003E": '>'}

// UnescapeHTML returns JSON text with the escapes \u0026, \u003c and \u003e turned back into
// &, < and >, for a person to read: the JSON means the same. Events keep them in the bytes
// stored and hashed (their payloads were encoded escaping HTML); only what is shown changes.
// Other escapes, and an escaped backslash followed by "u0026", are left as they are.
func UnescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			if c, ok := htmlEscapes[string(b[i+2:i+6])]; ok {
				out = append(out, c)
				i += 5
				continue
			}
		}
		out = append(out, b[i], b[i+1]) // an escape pair is copied whole: \\ is not a start
		i++
	}
	return out
}

// WriteJSON writes v to w as JSON for a person to read, ended by a newline: indented by indent
// ("" for one compact line), with &, < and > as themselves, also inside raw payloads.
func WriteJSON(w io.Writer, v any, indent string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	_, err := w.Write(UnescapeHTML(buf.Bytes()))
	return err
}
