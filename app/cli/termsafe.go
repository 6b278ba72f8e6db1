package cli

import (
	"io"

	"exo/themes/termsafe"
)

// newTermSafe wraps w so that what an agent controls (a session's name, an event, a model's
// answer, a command's output) never acts on the user's terminal through exo's command line,
// whatever exo prints it with: every escape sequence but SGR colours goes, and C0 and C1
// controls but newline, tab and carriage return, as the app shows text. It is exo's one
// sanitizer (themes/termsafe) as a stream: a sequence or UTF-8 character cut by the end of
// a write is finished by the next, and JSON output passes unchanged (it holds no control
// characters).
func newTermSafe(w io.Writer) io.Writer { return termsafe.NewWriter(w, termsafe.Display) }
