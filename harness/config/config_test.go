package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// write puts a file at path (folders made).
func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestNoFilesGiveDefaults(t *testing.T) {
	dir := t.TempDir()
	c, err := Load(Options{UserFile: filepath.Join(dir, "none.toml"), Project: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Files) != 0 || len(c.Warnings) != 0 {
		t.Fatalf("files %v warnings %v", c.Files, c.Warnings)
	}
	for _, k := range Known() {
		if c.Source(k) != SourceDefault {
			t.Errorf("%s from %q, want default", k, c.Source(k))
		}
	}
	if c.Get(KeyTheme) != "auto" || c.Get(KeyApproval) != ApprovalAuto || c.Get("keys.quit") != "ctrl+q" {
		t.Fatalf("defaults: %+v", c.Values)
	}
	if len(c.Keys()) != 0 {
		t.Fatalf("no key is remapped by default: %v", c.Keys())
	}
}

func TestProjectOverUserWithSources(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user", "config.toml")
	proj := filepath.Join(dir, "proj")
	write(t, user, "model = \"gpt\"\ntheme = \"dark\"\nnotify = [\"bell\", \"osc777\"]\n[keys]\nquit = \"ctrl+d\"\nzoom = [\"Z\", \"f11\"]\n")
	write(t, filepath.Join(proj, ".exo", "config.toml"), "theme = \"light\"\napproval = \"ask\"\n")
	c, err := Load(Options{UserFile: user, Project: proj})
	if err != nil {
		t.Fatal(err)
	}
	pf := filepath.Join(proj, ".exo", "config.toml")
	want := map[string][2]string{
		KeyModel: {"gpt", user}, KeyTheme: {"light", pf}, KeyApproval: {"ask", pf}, KeyNotify: {"bell,osc777", user},
		KeyExecutor: {"default", SourceDefault}, "keys.quit": {"ctrl+d", user}, "keys.zoom": {"Z,f11", user}, "keys.help": {"?", SourceDefault},
	}
	for k, w := range want {
		if c.Get(k) != w[0] || c.Source(k) != w[1] {
			t.Errorf("%s = %q from %q, want %q from %q", k, c.Get(k), c.Source(k), w[0], w[1])
		}
	}
	if got := c.Keys(); len(got) != 2 || got["zoom"][1] != "f11" || got["quit"][0] != "ctrl+d" {
		t.Fatalf("keys %v", got)
	}
	if len(c.Files) != 2 || c.Files[0] != user || c.Files[1] != pf {
		t.Fatalf("files %v", c.Files)
	}
}

func TestMalformedFilesNameTheLine(t *testing.T) {
	cases := []struct{ text, want string }{
		{"model = \"a\"\ntheme = \"dark\n", ":2:"},                     // unterminated string
		{"model = \"a\"\n\ntheme = 5\n", ":3: theme must be a string"}, // wrong type
		{"theme = \"dark\"\napproval = \"yolo\"\n", ":2: approval mode \"yolo\""},
		{"[keys]\nquit = \"\"\n", ":2: keys.quit"},
		{"keys = 3\n", ":1: keys must be a table"},
		{"notify = [\"bell\", 3]\n", ":1: notify: every item must be a string"},
		{"executor = \"bash -c x\"\n", ":1: executor"},
		{"theme = \"dark\"\ntheme = \"light\"\n", ":2:"}, // duplicate key
		{"\x00\x01[[", "config.toml:"},
	}
	for _, tc := range cases {
		path := filepath.Join(t.TempDir(), "config.toml")
		write(t, path, tc.text)
		_, err := Load(Options{UserFile: path})
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to name %s and %q", tc.text, err, path, tc.want)
		}
	}
}

func TestUnknownKeysAreWarnedWithTheirLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	write(t, path, "theme = \"dark\"\ncolour = \"red\"\n[keys]\nquit = \"ctrl+d\"\nfly = \"f\"\n[extra]\nx = 1\n")
	c, err := Load(Options{UserFile: path})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(c.Warnings, "\n")
	for _, w := range []string{path + ":2: unknown key \"colour\"", path + ":5: unknown key action \"fly\"", path + ":6: unknown key \"extra\""} {
		if !strings.Contains(all, w) {
			t.Errorf("warnings %q lack %q", all, w)
		}
	}
	if c.Get(KeyTheme) != "dark" || c.Get("keys.quit") != "ctrl+d" {
		t.Fatalf("known keys must still apply: %+v", c.Values)
	}
}

func TestUntrustedProjectMayOnlyTighten(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.toml")
	proj := filepath.Join(dir, "proj")
	write(t, user, "approval = \"ask\"\nexecutor = \"codex\"\n")
	pf := filepath.Join(proj, ".exo", "config.toml")
	write(t, pf, "approval = \"auto\"\nexecutor = \"acp:evil --flag\"\ntheme = \"light\"\n")
	c, err := Load(Options{UserFile: user, Project: proj})
	if err != nil {
		t.Fatal(err)
	}
	if c.Get(KeyApproval) != "ask" || c.Source(KeyApproval) != user {
		t.Fatalf("an untrusted project loosened approval: %q from %s", c.Get(KeyApproval), c.Source(KeyApproval))
	}
	if c.Get(KeyExecutor) != "codex" {
		t.Fatalf("an untrusted project chose the executor: %q", c.Get(KeyExecutor))
	}
	if c.Get(KeyTheme) != "light" {
		t.Fatalf("harmless settings apply: theme %q", c.Get(KeyTheme))
	}
	if all := strings.Join(c.Warnings, "\n"); !strings.Contains(all, "approval = \"auto\" ignored") || !strings.Contains(all, "executor = \"acp:evil --flag\" ignored") {
		t.Fatalf("warnings %q", all)
	}
	// Tightening needs no trust.
	write(t, pf, "approval = \"read-only\"\n")
	if c, err = Load(Options{UserFile: user, Project: proj}); err != nil || c.Get(KeyApproval) != ApprovalReadOnly {
		t.Fatalf("tighten: %v %q", err, c.Get(KeyApproval))
	}
	// Trusted (these exact bytes): the project may loosen and choose.
	write(t, pf, "approval = \"auto\"\nexecutor = \"acp:agent\"\n")
	want, _ := os.ReadFile(pf)
	trusted := func(p string, data []byte) bool { return p == proj && string(data) == string(want) }
	if c, err = Load(Options{UserFile: user, Project: proj, Trusted: trusted}); err != nil {
		t.Fatal(err)
	}
	if c.Get(KeyApproval) != ApprovalAuto || c.Get(KeyExecutor) != "acp:agent" || len(c.Warnings) != 0 {
		t.Fatalf("trusted project: %+v %v", c.Values, c.Warnings)
	}
	if a, err := ProjectApproval(proj); err != nil || a != ApprovalAuto {
		t.Fatalf("ProjectApproval = %q, %v", a, err)
	}
}

func TestApprovalModes(t *testing.T) {
	if Stricter("auto", "ask") != "ask" || Stricter("read-only", "ask") != "read-only" || Stricter("", "") != "auto" || Stricter("ask", "") != "ask" {
		t.Fatal("Stricter orders auto < ask < read-only")
	}
	cases := []struct {
		policy, mode string
		ro           bool
		want         string
	}{
		{"auto", "auto", false, "auto"}, {"auto", "ask", false, "ask"}, {"auto", "read-only", false, "deny"},
		{"auto", "read-only", true, "auto"}, {"auto", "ask", true, "auto"}, {"deny", "ask", false, "deny"},
		{"ask", "auto", false, "ask"}, {"ask", "read-only", false, "deny"}, {"auto", "", false, "auto"},
	}
	for _, c := range cases {
		if got := ApplyApproval(c.policy, c.mode, c.ro); got != c.want {
			t.Errorf("ApplyApproval(%q, %q, %v) = %q, want %q", c.policy, c.mode, c.ro, got, c.want)
		}
	}
}

func TestHugeOrOddFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.toml")
	write(t, big, "# "+strings.Repeat("x", maxFileBytes)+"\n")
	if _, err := Load(Options{UserFile: big}); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("big file: %v", err)
	}
	if _, err := Load(Options{UserFile: dir}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a folder: %v", err)
	}
}

func FuzzParseNeverPanics(f *testing.F) {
	f.Add("theme = \"dark\"\n[keys]\nquit = \"q\"\n")
	f.Add("[keys\n")
	f.Add("approval = [1,2]\nkeys.quit = 'x'\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = parse("f.toml", []byte(s), false)
		_, _ = parse("f.toml", []byte(s), true)
	})
}

func TestSandboxTable(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.toml")
	os.WriteFile(user, []byte("[sandbox]\nprocesses = 300\nmemory = \"2G\"\ncpu_weight = \"auto\"\ntmp_size = \"512M\"\n"), 0o600)
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(filepath.Join(proj, ".exo"), 0o700)
	os.WriteFile(filepath.Join(proj, ProjectFile), []byte("[sandbox]\nmemory = \"64G\"\n"), 0o600)
	c, err := Load(Options{UserFile: user, Project: proj})
	if err != nil {
		t.Fatal(err)
	}
	if c.Get(KeySandboxProcesses) != "300" || c.Get(KeySandboxMemory) != "2G" || c.Get(KeySandboxCPUWeight) != "auto" || c.Get(KeySandboxTmpSize) != "512M" {
		t.Fatalf("values: %+v", c.Values)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "may not set the sandbox's caps") {
		t.Fatalf("a project loosened the caps: %q", c.Warnings)
	}
	if n, err := ParseSize("2G"); err != nil || n != 2<<30 {
		t.Fatalf("2G: %d %v", n, err)
	}
	for _, bad := range []string{"0", "-1", "2X", "1G5", "lots"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	os.WriteFile(user, []byte("[sandbox]\ncpu_weight = 20000\n"), 0o600)
	if _, err := Load(Options{UserFile: user}); err == nil {
		t.Fatal("a weight of 20000 accepted")
	}
}

// TestFindInstructionsFromRepositoryRootDown: the user's file first, then the folders from the
// repository's root (the nearest .git up) down to the project, AGENTS.md before CLAUDE.md; a
// big file is marked cut; outside a repository only the folder itself counts, and exo's home is
// never climbed into.
func TestFindInstructionsFromRepositoryRootDown(t *testing.T) {
	repo := t.TempDir()
	proj := filepath.Join(repo, "a", "b")
	os.MkdirAll(proj, 0o755)
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	os.WriteFile(filepath.Join(repo, "AGENTS.md"), make([]byte, MaxInstructionBytes+1), 0o644)
	os.WriteFile(filepath.Join(repo, "a", "CLAUDE.md"), []byte("a"), 0o644)
	os.WriteFile(filepath.Join(proj, "AGENTS.md"), []byte("b"), 0o644)
	os.WriteFile(filepath.Join(proj, "CLAUDE.md"), []byte("b"), 0o644)
	user := filepath.Join(t.TempDir(), "AGENTS.md")
	os.WriteFile(user, []byte("u"), 0o644)
	c, err := Load(Options{Project: proj, UserInstructions: user})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range c.Instructions {
		got = append(got, f.Scope+":"+f.Path)
	}
	want := []string{"user:" + user, "project:" + filepath.Join(repo, "AGENTS.md"), "project:" + filepath.Join(repo, "a", "CLAUDE.md"),
		"project:" + filepath.Join(proj, "AGENTS.md"), "project:" + filepath.Join(proj, "CLAUDE.md")}
	if strings.Join(got, " ") != strings.Join(want, " ") || !c.Instructions[1].Truncated || c.Instructions[2].Truncated {
		t.Fatalf("instructions: %+v", c.Instructions)
	}
	if chain := InstructionChain(proj, repo); len(chain) != 1 || chain[0] != proj {
		t.Fatalf("climbed into the stop folder: %v", chain)
	}
	os.Remove(filepath.Join(repo, ".git"))
	if chain := InstructionChain(proj, ""); len(chain) != 1 || chain[0] != proj {
		t.Fatalf("outside a repository: %v", chain)
	}
}
