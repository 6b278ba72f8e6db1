package governance

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const fixtures = "../../testdata/governance"

// project copies a fixture's constitution into a fresh project directory.
func project(t *testing.T, fixture string) string {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(fixtures, fixture, ConstitutionPath))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, ConstitutionPath), string(src))
	return dir
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestParseValidConstitution(t *testing.T) {
	c, _, err := LoadConstitution(project(t, "valid"))
	if err != nil {
		t.Fatal(err)
	}
	want := &Constitution{Version: 1, Project: "sample",
		Rules:     []string{"Keep changes small.", "Run the tests before you say you are done."},
		Deny:      []string{"**/*.pem", "secrets/**"},
		Scope:     DefaultScope{Allow: []string{"src/**", "docs/**"}, Budget: 12, Policy: PolicyRevert},
		Boundary:  []string{"go.sum"},
		Approvals: map[string]Approval{"read_file": ApprovalAuto, "bash": ApprovalAsk, "*": ApprovalDeny},
		Checks:    []Check{{Name: "tests", Run: "go test ./..."}, {Name: "go vet ./...", Run: "go vet ./..."}},
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got %+v", c)
	}
	if c.Approval("bash") != ApprovalAsk || c.Approval("write_file") != ApprovalDeny {
		t.Fatal("approvals")
	}
	s, err := NewScope(c, ScopeRequest{Deny: []string{"src/vendor/**"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Budget != 12 || s.Policy != PolicyRevert || len(s.Deny) != 3 || !IsBoundary(s, "go.sum") || !IsBoundary(s, ".git/HEAD") {
		t.Fatalf("scope from constitution %+v", s)
	}
}

func TestConstitutionErrorsCarryLineAndColumn(t *testing.T) {
	_, _, err := LoadConstitution(project(t, "invalid"))
	if !errors.Is(err, ErrInvalidConstitution) {
		t.Fatalf("err %v", err)
	}
	for _, want := range []string{
		`constitution.yaml:6:5: deny: glob "src/[oops" is not a valid pattern`,
		"constitution.yaml:9:11: budget must be a positive integer",
		`constitution.yaml:10:11: policy must be record or revert, not "maybe"`,
		`constitution.yaml:11:3: unknown key "colour" in scope`,
		`constitution.yaml:13:9: approval for bash must be auto, ask or deny, not "sometimes"`,
		"constitution.yaml:15:5: check needs a command to run",
		`constitution.yaml:18:5: unknown key "timeout" in check`,
		`constitution.yaml:19:1: unknown key "boundaries" in constitution`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	var pe *PosError
	if !errors.As(err, &pe) || pe.Line != 6 {
		t.Errorf("first positioned error %+v", pe)
	}
}

func TestConstitutionSyntaxAndShapeErrors(t *testing.T) {
	cases := map[string]string{
		"version: 1\nrules: [unclosed\n": "constitution.yaml:2:9: did not find expected ',' or ']'",
		// YAML syntax errors carry a column too: the byte at which the source stops being YAML.
		"version: 1\nproject: a: b\n":           "constitution.yaml:2:11: mapping values are not allowed in this context",
		"version: 1\n\tproject: x\n":            "constitution.yaml:2:1: found a tab character that violates indentation",
		"version: 1\nrules:\n  - a\n - b\n":     "constitution.yaml:4:2: did not find expected key",
		"version: 1\nproject: @x\n":             "constitution.yaml:2:10: found character that cannot start any token",
		"checks:\n  - name: t\n    run: a: b\n": "constitution.yaml:3:11: mapping values are not allowed in this context",
		"- just\n- a list\n":                    "constitution.yaml:1:1: constitution must be a mapping",
		"version: 2\n":                          "constitution.yaml:1:10: version must be 1",
		"scope:\n  budget: ten\n":               "constitution.yaml:2:11: budget must be a positive integer",
		"rules: text\n":                         "constitution.yaml:1:8: rules must be a list",
		"version: 1\nversion: 1\n":              `constitution.yaml:2:1: key "version" repeated`,
		"":                                      "empty constitution",
	}
	for src, want := range cases {
		_, err := ParseConstitution("constitution.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}

func TestCompileAndVerifyLock(t *testing.T) {
	dir := project(t, "valid")
	if _, err := VerifyLock(dir); !errors.Is(err, ErrGovernanceDrift) || !strings.Contains(err.Error(), "exo compile") {
		t.Fatalf("missing lock: %v", err)
	}
	c, l, err := Compile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.SHA256) != 64 {
		t.Fatalf("lock %+v", l)
	}
	sealed, err := VerifyLock(dir)
	if err != nil || !reflect.DeepEqual(sealed, c) {
		t.Fatalf("verify: %v %+v", err, sealed)
	}
	// A comment changes the source but not the rules: still valid.
	path := filepath.Join(dir, ConstitutionPath)
	src, _ := os.ReadFile(path)
	writeFile(t, path, "# reviewed\n"+string(src))
	if _, err := VerifyLock(dir); err != nil {
		t.Fatalf("comment-only change: %v", err)
	}
	// A changed rule is governance drift until recompiled.
	writeFile(t, path, strings.Replace(string(src), "budget: 12", "budget: 40", 1))
	_, err = VerifyLock(dir)
	if !errors.Is(err, ErrGovernanceDrift) || !strings.Contains(err.Error(), "changed since .exo/policy.lock was compiled") {
		t.Fatalf("stale lock: %v", err)
	}
	if _, _, err := Compile(dir); err != nil {
		t.Fatal(err)
	}
	if c, err := VerifyLock(dir); err != nil || c.Scope.Budget != 40 {
		t.Fatalf("recompiled: %v %+v", err, c)
	}
	// A hand-edited lock is caught.
	lock := filepath.Join(dir, LockPath)
	raw, _ := os.ReadFile(lock)
	writeFile(t, lock, strings.Replace(string(raw), `"budget": 40`, `"budget": 400`, 1))
	if _, err := VerifyLock(dir); !errors.Is(err, ErrGovernanceDrift) || !strings.Contains(err.Error(), "edited by hand") {
		t.Fatalf("tampered lock: %v", err)
	}
	// A constitution that no longer compiles is drift too.
	if _, _, err := Compile(dir); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, "version: 1\nscope:\n  budget: 0\n")
	if _, err := VerifyLock(dir); !errors.Is(err, ErrGovernanceDrift) || !strings.Contains(err.Error(), "3:11: budget") {
		t.Fatalf("broken constitution: %v", err)
	}
}

func TestVerifyWithoutGovernance(t *testing.T) {
	if c, err := VerifyLock(t.TempDir()); c != nil || err != nil {
		t.Fatalf("%v %v", c, err)
	}
	dir := project(t, "valid")
	if _, _, err := Compile(dir); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, ConstitutionPath))
	if _, err := VerifyLock(dir); !errors.Is(err, ErrGovernanceDrift) {
		t.Fatalf("constitution removed: %v", err)
	}
}

func TestInitDetectsProjects(t *testing.T) {
	for fixture, want := range map[string]Project{
		"go":     {Language: "go", Test: "go test ./..."},
		"node":   {Language: "node", Test: "npm test"},
		"python": {Language: "python", Test: "pytest"},
		"rust":   {Language: "rust", Test: "cargo test"},
		"none":   {},
		// No manifest: the sources say the language; a Go folder without go.mod gets no check
		// (go test ./... needs one) and a note saying so.
		"gosources": {Language: "go", Note: "no go.mod: run 'go mod init NAME', then add 'go test ./...' to checks"},
		"pysources": {Language: "python", Test: "pytest"},
	} {
		dir := filepath.Join(t.TempDir(), fixture)
		entries, _ := os.ReadDir(filepath.Join(fixtures, "detect", fixture))
		for _, e := range entries {
			writeFile(t, filepath.Join(dir, e.Name()), "")
		}
		p, err := Init(dir)
		if err != nil {
			t.Fatal(err)
		}
		if p.Language != want.Language || p.Test != want.Test || p.Note != want.Note || p.Name != fixture {
			t.Errorf("%s: %+v", fixture, p)
		}
		c, _, err := Compile(dir)
		if err != nil {
			t.Fatalf("%s: starter does not compile: %v", fixture, err)
		}
		if want.Test != "" && (len(c.Checks) != 1 || c.Checks[0].Run != want.Test) {
			t.Errorf("%s: checks %+v", fixture, c.Checks)
		}
		if _, err := Init(dir); !errors.Is(err, ErrExists) {
			t.Errorf("%s: second init: %v", fixture, err)
		}
	}
}
