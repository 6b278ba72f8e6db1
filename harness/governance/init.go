package governance

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"exo/sandbox"
)

// ErrExists means Init found a constitution already.
var ErrExists = errors.New("constitution exists already")

// Project is what Init detected about a directory.
type Project struct {
	Name     string `json:"name"`
	Language string `json:"language"` // go, node, python, rust, … or "" when unknown
	Test     string `json:"test,omitempty"`
	// Note says what Init could not guess and why (a missing manifest), or "".
	Note string `json:"note,omitempty"`
}

// projectKind is one detection rule: a marker file, a language and its test command.
type projectKind struct {
	markers  []string
	language string
	test     string
}

// projectKinds are tried in order; the first with a marker present wins.
var projectKinds = []projectKind{
	{[]string{"go.mod"}, "go", "go test ./..."},
	{[]string{"Cargo.toml"}, "rust", "cargo test"},
	{[]string{"package.json"}, "node", "npm test"},
	{[]string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"}, "python", "pytest"},
	{[]string{"Gemfile"}, "ruby", "bundle exec rake test"},
	{[]string{"pom.xml"}, "java", "mvn test"},
	{[]string{"build.gradle", "build.gradle.kts"}, "java", "./gradlew test"},
	{[]string{"mix.exs"}, "elixir", "mix test"},
	{[]string{"Makefile"}, "make", "make test"},
}

// DetectProject guesses the language and test command of dir from its files: a manifest
// (go.mod, package.json, …) first, else the sources themselves (*.go, *.py, …).
func DetectProject(dir string) Project {
	p := Project{Name: filepath.Base(filepath.Clean(dir))}
	for _, k := range projectKinds {
		for _, m := range k.markers {
			if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
				p.Language, p.Test = k.language, k.test
				return p
			}
		}
	}
	if s, ok := detectSources(dir); ok {
		p.Language, p.Test, p.Note = s.language, s.test, s.note
	}
	return p
}

// Init writes a starter constitution for the project in dir, refusing to overwrite one. It
// returns what it detected; run Compile afterwards to seal it.
func Init(dir string) (Project, error) {
	path := filepath.Join(dir, ConstitutionPath)
	if _, err := os.Stat(path); err == nil {
		return Project{}, fmt.Errorf("%s: %w (edit it, then run 'exo compile')", path, ErrExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Project{}, fmt.Errorf("init: %w", err)
	}
	p := DetectProject(dir)
	d, err := sandbox.OpenDir(dir)
	if err != nil {
		return Project{}, fmt.Errorf("init: %w", err)
	}
	defer d.Close()
	if err := d.MkdirAll(filepath.Dir(ConstitutionPath), 0o755); err != nil {
		return Project{}, fmt.Errorf("init: %w", err)
	}
	f, err := d.OpenFile(ConstitutionPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return Project{}, fmt.Errorf("init: %w", err)
	}
	if _, err := f.WriteString(StarterConstitution(p)); err != nil {
		f.Close()
		return Project{}, fmt.Errorf("init: %w", err)
	}
	return p, f.Close()
}

// StarterConstitution renders the starter constitution for a detected project.
func StarterConstitution(p Project) string {
	var b strings.Builder
	lang := p.Language
	if lang == "" {
		lang = "unknown language"
	}
	fmt.Fprintf(&b, "# exo constitution for %s (%s). Edit it, then run 'exo compile' to seal it\n", p.Name, lang)
	b.WriteString("# into .exo/policy.lock; sessions refuse to start when the two disagree.\n")
	if p.Note != "" {
		fmt.Fprintf(&b, "# %s\n", p.Note)
	}
	b.WriteString("version: 1\n")
	fmt.Fprintf(&b, "project: %q\n\n", p.Name)
	b.WriteString("# Rules are shown to every agent at the start of its session.\n")
	b.WriteString("rules:\n")
	b.WriteString("  - Keep each change small and focused on the task you were given.\n")
	b.WriteString("  - Do not edit generated, vendored or lock files unless the task says so.\n")
	if p.Test != "" {
		fmt.Fprintf(&b, "  - Run the tests (%s) before you say you are done.\n", p.Test)
	}
	b.WriteString("\n# Paths no session may change (added to every scope's deny list).\n")
	b.WriteString("deny:\n  - \"**/*.pem\"\n  - \"**/.env\"\n")
	b.WriteString("\n# The scope a session gets unless it asks for another ('exo new --scope').\n")
	b.WriteString("scope:\n  # allow: [\"src/**\"]\n  budget: 25\n  policy: record   # or revert\n")
	b.WriteString("\n# Boundary paths besides .git/**, .exo/** and this file.\n")
	b.WriteString("boundary: []\n")
	b.WriteString("\n# Approval per tool: auto, ask or deny; \"*\" is the default.\n")
	b.WriteString("approvals:\n  read_file: auto\n  write_file: auto\n  edit_file: auto\n  bash: ask\n")
	b.WriteString("\n# Commands run in the sandbox when a session finishes.\n")
	if p.Test != "" {
		fmt.Fprintf(&b, "checks:\n  - name: tests\n    run: %s\n", p.Test)
	} else {
		b.WriteString("checks: []\n")
	}
	return b.String()
}
