// Package conventions runs the conventions users bring from other agents' CLIs (configuration,
// -c/--continue, stream-json, session removal and gc, completions, progress) end to end against
// the built exo binary, in a package of its own so its time does not count against
// app/e2e's test timeout.
package conventions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/app/e2e/exobuild"
)

// exoBin is the exo binary built once for these tests.
var exoBin string

func TestMain(m *testing.M) { exobuild.Main(m, "conventions", &exoBin) }

// user is one user of exo in the tests: an EXO_HOME, a configuration folder and a project.
type user struct {
	t       *testing.T
	home    string
	xdg     string
	project string
	env     []string
}

// newUser makes a user with an empty configuration folder and a project folder.
func newUser(t *testing.T) *user {
	t.Helper()
	u := &user{t: t, home: t.TempDir(), xdg: t.TempDir(), project: t.TempDir()}
	u.env = []string{"XDG_CONFIG_HOME=" + u.xdg, "EXO_HOME=" + u.home, "EXO_NOTIFY="}
	return u
}

// exo runs exo in dir ("" the project) and returns stdout, stderr and the exit code.
func (u *user) exo(dir string, args ...string) (string, string, int) {
	u.t.Helper()
	return u.exoStdin(dir, "", args...)
}

// exoStdin is exo with text on stdin.
func (u *user) exoStdin(dir, stdin string, args ...string) (string, string, int) {
	u.t.Helper()
	if dir == "" {
		dir = u.project
	}
	return exobuild.Run(u.t, exoBin, u.home, dir, u.env, stdin, args...)
}

// must runs exo in the project and fails the test on a non-zero exit.
func (u *user) must(args ...string) string {
	u.t.Helper()
	out, errs, code := u.exo("", args...)
	if code != 0 {
		u.t.Fatalf("exo %v: exit %d: %s%s", args, code, errs, out)
	}
	return out
}

// write puts a file (folders made).
func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// model registers a scripted model from a script's text as the default.
func (u *user) model(name, script string) {
	u.t.Helper()
	path := filepath.Join(u.t.TempDir(), name+".yaml")
	write(u.t, path, script)
	u.must("model", "register", name, "--provider", "scripted", "--base-url", path)
	u.must("model", "default", name)
}

// jsonLines decodes JSON lines.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %q (%v)", l, err)
		}
		lines = append(lines, m)
	}
	return lines
}
