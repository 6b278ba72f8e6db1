package governance

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckEachKindOfPath(t *testing.T) {
	s := Scope{Allow: []string{"src/**"}, Deny: []string{"src/vendor/**"}, Boundary: []string{"src/gen.lock"}}
	cases := []struct {
		path string
		want error
		msg  string
	}{
		{"src/main.go", nil, ""},
		{"./src/a/../b.go", nil, ""},
		{"src/vendor/x.go", ErrOutOfScope, "path src/vendor/x.go is outside this session's scope (deny src/vendor/**); allowed: src/**"},
		{"docs/readme.md", ErrOutOfScope, "path docs/readme.md is outside this session's scope (not in allow); allowed: src/**"},
		{".git/config", ErrBoundary, "path .git/config is a boundary path (.git/**)"},
		{".git", ErrBoundary, "boundary path"},
		{".exo/constitution.yaml", ErrBoundary, "boundary path (.exo/**)"},
		{"src/gen.lock", ErrBoundary, "boundary path (src/gen.lock)"},
		{"../etc/passwd", ErrEscape, "escapes the workspace"},
		{"src/../../x", ErrEscape, "escapes the workspace"},
		{"/etc/passwd", ErrAbsolute, "path /etc/passwd is absolute"},
		{"", ErrEmpty, ""},
		{".", ErrEmpty, ""},
	}
	for _, c := range cases {
		err := CheckPath(s, c.path)
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("Check(%q) = %v, want %v", c.path, err, c.want)
			continue
		}
		if c.msg != "" && !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Check(%q) message %q, want it to contain %q", c.path, err, c.msg)
		}
	}
}

func TestUnscopedAllowsAllButBoundaries(t *testing.T) {
	var s Scope
	if err := CheckPath(s, "anything/at/all.txt"); err != nil {
		t.Fatal(err)
	}
	if err := CheckPath(s, ".exo/policy.lock"); !errors.Is(err, ErrBoundary) {
		t.Fatalf("boundary: %v", err)
	}
}

func TestRelPath(t *testing.T) {
	for in, want := range map[string]string{"/w/src/a.go": "src/a.go", "src/./a.go": "src/a.go"} {
		if got, err := RelPath("/w", in); err != nil || got != want {
			t.Errorf("RelPath(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := RelPath("/w", "/other/a.go"); !errors.Is(err, ErrEscape) {
		t.Errorf("outside workspace: %v", err)
	}
}

func TestValidateRejectsBadGlobs(t *testing.T) {
	for _, g := range []string{"", "/abs/**", "../up/**", "src/[", "a/../b"} {
		if err := ValidateScope(Scope{Allow: []string{g}}); !errors.Is(err, ErrBadScope) {
			t.Errorf("glob %q: %v", g, err)
		}
	}
	if err := ValidateScope(Scope{Budget: -1}); err == nil {
		t.Error("negative budget accepted")
	}
	if err := ValidateScope(Scope{Policy: "delete"}); err == nil {
		t.Error("bad policy accepted")
	}
}

func TestNarrow(t *testing.T) {
	parent := Scope{Allow: []string{"src/**"}, Deny: []string{"src/vendor/**"}, Budget: 10}
	got, err := Narrow(parent, Scope{Allow: []string{"src/api/**", "src/main.go"}, Budget: 5, Policy: PolicyRevert})
	if err != nil {
		t.Fatal(err)
	}
	if got.Budget != 5 || got.Policy != PolicyRevert || len(got.Deny) != 1 || len(got.Allow) != 2 {
		t.Fatalf("narrowed %+v", got)
	}
	inherited, err := Narrow(parent, Scope{})
	if err != nil || inherited.Budget != 10 || inherited.Allow[0] != "src/**" {
		t.Fatalf("inherit: %+v %v", inherited, err)
	}
	widening := []Scope{
		{Allow: []string{"docs/**"}},
		{Allow: []string{"**"}},
		{Allow: []string{"src*/**"}},
		{Allow: []string{"srcx/**"}},
		{Budget: 11},
	}
	for _, w := range widening {
		if _, err := Narrow(parent, w); !errors.Is(err, ErrWidening) {
			t.Errorf("Narrow(%+v) = %v, want ErrWidening", w, err)
		}
	}
	if _, err := Narrow(Scope{Policy: PolicyRevert}, Scope{Policy: PolicyRecord}); !errors.Is(err, ErrWidening) {
		t.Errorf("revert → record: %v", err)
	}
	if _, err := Narrow(Scope{Allow: []string{"src/a?"}}, Scope{Allow: []string{"src/a*"}}); !errors.Is(err, ErrWidening) {
		t.Errorf("a? → a*: %v", err)
	}
}

func TestCheckInFollowsSymlinks(t *testing.T) {
	ws := t.TempDir()
	for _, d := range []string{"src", ".git", "docs"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{"src/git": "../.git", "src/docs": "../docs", "src/out": "/etc", "src/ok": "."}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	s := Scope{Allow: []string{"src/**"}}
	cases := map[string]error{
		"src/a.go":         nil,
		"src/ok/b.go":      nil,
		ws + "/src/c.go":   nil,
		"src/git/config":   ErrBoundary,
		"src/docs/x.md":    ErrOutOfScope,
		"src/out/passwd":   ErrEscape,
		"../outside":       ErrEscape,
		"/etc/passwd":      ErrEscape,
		"src/new/dir/x.go": nil,
	}
	for p, want := range cases {
		err := CheckIn(s, ws, p)
		if (want == nil) != (err == nil) || (want != nil && !errors.Is(err, want)) {
			t.Errorf("CheckIn(%q) = %v, want %v", p, err, want)
		}
	}
}
