package help

import "strings"

// For returns the help text a command line asks for, and whether it is one this package
// answers: exactly `--help` or `-h` after a command's path (`exo model register --help`), or
// `help` before one (`exo help model register`), with nothing else on the line. Any other line
// (a flag, an argument, an unknown command) is the full exo's to parse.
func For(args []string) (string, bool) {
	if len(args) == 0 {
		return "", false
	}
	var path []string
	switch {
	case args[0] == "help":
		path = args[1:]
	case args[len(args)-1] == "--help" || args[len(args)-1] == "-h":
		path = args[:len(args)-1]
	default:
		return "", false
	}
	for _, p := range path {
		if p == "" || strings.HasPrefix(p, "-") || strings.Contains(p, " ") {
			return "", false
		}
	}
	text, ok := texts[strings.Join(path, " ")]
	return text, ok
}

// Paths returns every command path this package has the help text of.
func Paths() []string {
	out := make([]string, 0, len(texts))
	for p := range texts {
		out = append(out, p)
	}
	return out
}
