package views

import (
	"io"

	"exo/views/plaintext"
)

// UnescapeHTML returns JSON text with the escapes \u0026, \u003c and \u003e turned back into
// &, < and > for a person to read (see plaintext.UnescapeHTML, which it is).
func UnescapeHTML(b []byte) []byte { return plaintext.UnescapeHTML(b) }

// WriteJSON writes v as JSON for a person to read (see plaintext.WriteJSON, which it is).
func WriteJSON(w io.Writer, v any, indent string) error { return plaintext.WriteJSON(w, v, indent) }
