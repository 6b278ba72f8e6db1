package governance

import (
	"os"
	"path/filepath"
	"strings"
)

// sourceKind is what a project's sources say when it has no manifest: its language, the test
// command that runs without one ("" when none does) and a note saying what is missing.
type sourceKind struct {
	language, test, note string
}

// sourceKinds maps a source file's extension to its language.
var sourceKinds = map[string]sourceKind{
	".go":   {"go", "", "no go.mod: run 'go mod init NAME', then add 'go test ./...' to checks"},
	".rs":   {"rust", "", "no Cargo.toml: run 'cargo init', then add 'cargo test' to checks"},
	".js":   {"node", "", "no package.json: run 'npm init', then add 'npm test' to checks"},
	".mjs":  {"node", "", "no package.json: run 'npm init', then add 'npm test' to checks"},
	".ts":   {"node", "", "no package.json: run 'npm init', then add 'npm test' to checks"},
	".tsx":  {"node", "", "no package.json: run 'npm init', then add 'npm test' to checks"},
	".py":   {"python", "pytest", ""},
	".rb":   {"ruby", "", "no Gemfile: add one, then 'bundle exec rake test' to checks"},
	".java": {"java", "", "no pom.xml or build.gradle: add one, then its test command to checks"},
	".ex":   {"elixir", "", "no mix.exs: run 'mix new', then add 'mix test' to checks"},
	".exs":  {"elixir", "", "no mix.exs: run 'mix new', then add 'mix test' to checks"},
}

// skippedSourceDirs are folders whose files say nothing about the project's own language.
var skippedSourceDirs = map[string]bool{"node_modules": true, "vendor": true, "target": true, "dist": true,
	"venv": true, ".venv": true, "__pycache__": true, "testdata": true}

// detectSources guesses a project's language from its source files, in dir and the folders
// just below it, when no manifest names it: the language with the most files wins (a tie goes
// to the first name in alphabetical order). ok is false when no source file was found.
func detectSources(dir string) (sourceKind, bool) {
	counts := map[string]int{}
	first := map[string]sourceKind{}
	count := func(name string) {
		k, ok := sourceKinds[strings.ToLower(filepath.Ext(name))]
		if !ok {
			return
		}
		counts[k.language]++
		if _, seen := first[k.language]; !seen {
			first[k.language] = k
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "."):
		case e.Type().IsRegular():
			count(name)
		case e.IsDir() && !skippedSourceDirs[name]:
			sub, _ := os.ReadDir(filepath.Join(dir, name))
			for _, f := range sub {
				if f.Type().IsRegular() {
					count(f.Name())
				}
			}
		}
	}
	best, bestN := "", 0
	for lang, n := range counts {
		if n > bestN || (n == bestN && lang < best) {
			best, bestN = lang, n
		}
	}
	if bestN == 0 {
		return sourceKind{}, false
	}
	return first[best], true
}
