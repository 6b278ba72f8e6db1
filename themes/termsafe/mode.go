package termsafe

// Mode says what a Sanitizer keeps besides printable text and newlines.
type Mode int

const (
	// Display is for output written to a terminal as it comes (a sandbox pane, exo's command
	// line): SGR colour and attribute sequences, tabs and carriage returns are kept, so a
	// progress line redraws itself.
	Display Mode = iota
	// Text is plain text for a model or a log: no escape sequence at all, tabs kept, and a
	// carriage return that is not part of CRLF becomes a newline.
	Text
	// Screen is for a whole string drawn in a pane: SGR sequences are kept, a tab becomes four
	// spaces and a carriage return keeps only the text after it on its line, as a terminal
	// would show the line. The cut reaches back only to text of the same Feed call, so use
	// Screen through String.
	Screen
)

// keepsSGR reports whether m passes SGR sequences through.
func (m Mode) keepsSGR() bool { return m != Text }

// tabSpaces is what Screen writes for a tab.
const tabSpaces = "    "
