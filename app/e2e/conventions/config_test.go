package conventions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeScript writes a file, then answers.
const writeScript = `name: writer
chunk: 2
turns:
  - text: "Writing it."
    tool_calls:
      - name: write_file
        args: {path: out.txt, content: "x"}
  - text: "All done here."
`

// TestConfigShowsWhatIsInForceAndFromWhere: exo config lists each key with its value and its
// source file (or default), the project's file over the user's; --json carries the same.
func TestConfigShowsWhatIsInForceAndFromWhere(t *testing.T) {
	u := newUser(t)
	userFile := filepath.Join(u.xdg, "exo", "config.toml")
	projFile := filepath.Join(u.project, ".exo", "config.toml")
	write(t, userFile, "theme = \"dark\"\napproval = \"ask\"\n[keys]\nquit = \"ctrl+d\"\n")
	write(t, projFile, "theme = \"light\"\n")
	out := u.must("config")
	for _, want := range []string{"theme", "light", projFile, "approval", "ask", userFile, "keys.quit", "ctrl+d", "executor", "default"} {
		if !strings.Contains(out, want) {
			t.Fatalf("exo config lacks %q:\n%s", want, out)
		}
	}
	var cfg struct {
		Values []struct{ Key, Value, Source string }
		Files  []string
	}
	if err := json.Unmarshal([]byte(u.must("config", "--json")), &cfg); err != nil {
		t.Fatal(err)
	}
	got := map[string][2]string{}
	for _, v := range cfg.Values {
		got[v.Key] = [2]string{v.Value, v.Source}
	}
	if got["theme"] != [2]string{"light", projFile} || got["approval"] != [2]string{"ask", userFile} || got["model"][1] != "default" {
		t.Fatalf("config --json: %v", got)
	}
	if len(cfg.Files) != 2 {
		t.Fatalf("files %v", cfg.Files)
	}
}

// TestMalformedConfigIsAClearErrorAndLosesNothing: a broken file stops exo config and exo run
// with file:line and exit 2, creates no session, and an unknown key is only a warning.
func TestMalformedConfigIsAClearErrorAndLosesNothing(t *testing.T) {
	u := newUser(t)
	u.model("writer", writeScript)
	userFile := filepath.Join(u.xdg, "exo", "config.toml")
	write(t, userFile, "theme = \"dark\"\napproval = \"sometimes\"\n")
	for _, args := range [][]string{{"config"}, {"run", "hello"}} {
		_, errs, code := u.exo("", args...)
		if code != 2 || !strings.Contains(errs, userFile+":2:") || strings.Contains(errs, "panic") {
			t.Fatalf("exo %v: exit %d, stderr %q", args, code, errs)
		}
	}
	if out := u.must("sessions", "--json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("a failed run left a session: %s", out)
	}
	write(t, userFile, "theme = \"dark\"\nfavourite_colour = \"red\"\n")
	_, errs, code := u.exo("", "config")
	if code != 0 || !strings.Contains(errs, userFile+":2: unknown key \"favourite_colour\"") {
		t.Fatalf("unknown key: exit %d, %q", code, errs)
	}
}

// TestConfigApprovalModeReachesTheTurn: approval = "read-only" in the user's file refuses the
// model's write; a project file cannot loosen it unless trusted, and trusting it (exo trust)
// lets it; a project's read-only wins over the user's auto.
func TestConfigApprovalModeReachesTheTurn(t *testing.T) {
	u := newUser(t)
	u.model("writer", writeScript)
	userFile := filepath.Join(u.xdg, "exo", "config.toml")
	projFile := filepath.Join(u.project, ".exo", "config.toml")
	out := filepath.Join(u.project, "out.txt")
	write(t, userFile, "approval = \"read-only\"\n")
	write(t, projFile, "approval = \"auto\"\n")
	res := runJSON(t, u, "run", "--json", "write it")
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("read-only wrote the file: %v", res)
	}
	_, errs, _ := u.exo("", "config")
	if !strings.Contains(errs, "approval = \"auto\" ignored") {
		t.Fatalf("the ignored loosening is not warned: %q", errs)
	}
	u.must("trust", "--yes")
	runJSON(t, u, "run", "--json", "write it")
	if _, err := os.Stat(out); err != nil {
		t.Fatal("the trusted project's auto did not apply")
	}
	os.Remove(out)
	write(t, userFile, "approval = \"auto\"\n")
	write(t, projFile, "approval = \"read-only\"\n")
	runJSON(t, u, "run", "--json", "write it")
	if _, err := os.Stat(out); err == nil {
		t.Fatal("the project's read-only did not apply over the user's auto")
	}
}

// runJSON runs exo with --json output and decodes the object.
func runJSON(t *testing.T, u *user, args ...string) map[string]any {
	t.Helper()
	out, errs, _ := u.exo("", args...)
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("exo %v: %v\n%s\n%s", args, err, out, errs)
	}
	return m
}
