package sandbox

import "exo/themes/termsafe"

// newSanitizer returns exo's one output sanitizer (themes/termsafe, shared with the views):
// for the display stream (keepSGR: colours, tabs and carriage returns kept) or for model text
// (no escape at all, a lone carriage return becomes a newline).
func newSanitizer(keepSGR bool) *termsafe.Sanitizer {
	if keepSGR {
		return termsafe.New(termsafe.Display)
	}
	return termsafe.New(termsafe.Text)
}
