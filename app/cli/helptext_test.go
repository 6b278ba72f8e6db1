package cli

import (
	"slices"
	"strings"
	"testing"

	"exo/app/thin/help"
)

// TestThinHelpMatches: the thin exo's copy of the help texts (app/thin/help, generated) is what
// the full exo's command tree prints, for every command, as `exo CMD --help`, `exo CMD -h` and
// `exo help CMD`; a command added or changed without go generate ./app/thin/help fails here.
func TestThinHelpMatches(t *testing.T) {
	t.Parallel()
	texts, err := HelpTexts()
	if err != nil {
		t.Fatal(err)
	}
	paths := help.Paths()
	slices.Sort(paths)
	var want []string
	for p := range texts {
		want = append(want, p)
	}
	slices.Sort(want)
	if !slices.Equal(paths, want) {
		t.Fatalf("app/thin/help has the help of %q, the command tree %q: run go generate ./app/thin/help", paths, want)
	}
	for p, text := range texts {
		for _, line := range [][]string{append(strings.Fields(p), "--help"), append(strings.Fields(p), "-h"), append([]string{"help"}, strings.Fields(p)...)} {
			got, ok := help.For(line)
			if !ok || got != text {
				t.Errorf("exo %s: the thin exo's help differs from the full exo's (ok %v): run go generate ./app/thin/help", strings.Join(line, " "), ok)
				continue
			}
			if p == "" && line[0] == "help" {
				continue // `exo help` alone is checked below
			}
			out, code := run(line)
			if code != 0 || out != text {
				t.Errorf("exo %s prints %q (exit %d), the thin exo %q", strings.Join(line, " "), out, code, got)
			}
		}
	}
	if out, _ := run([]string{"help"}); out != texts[""] {
		t.Errorf("exo help prints %q, not exo --help's text", out)
	}
	// Lines the thin exo leaves to the full exo.
	for _, line := range [][]string{{"run", "hello", "--help"}, {"--home", "/x", "--help"}, {"nosuch", "--help"}, {"help", "nosuch"},
		{"run", "--", "--help"}, {"-h", "run"}, {}, {"run"}, {"help", "-h"}, {"help", "run", "--help"}} {
		if _, ok := help.For(line); ok {
			t.Errorf("the thin exo answers %q itself", line)
		}
	}
}

func run(args []string) (string, int) {
	var out, errb strings.Builder
	code := Execute(args, strings.NewReader(""), &out, &errb, Options{})
	return out.String(), code
}
