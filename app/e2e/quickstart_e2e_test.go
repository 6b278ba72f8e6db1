package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"exo/app/e2e/exobuild"
)

// quickStartCommand returns README's quick start command: the first sh block of its section.
func quickStartCommand(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Quick start")
	if !ok {
		t.Fatal("README has no Quick start section")
	}
	_, block, ok := strings.Cut(sec, "```sh\n")
	if !ok {
		t.Fatal("README's Quick start has no sh block")
	}
	cmd, _, _ := strings.Cut(block, "\n```")
	return strings.TrimSpace(cmd)
}

// TestQuickStartDemoStaysOutOfTheClone runs README's quick start command after its builds, in
// a folder holding the three binaries as a clone does: the demo's hello.py is written in the
// scratch folder the command names, never in the clone.
func TestQuickStartDemoStaysOutOfTheClone(t *testing.T) {
	t.Parallel()
	cmd := quickStartCommand(t)
	parts := strings.Split(cmd, " && ")
	if len(parts) < 4 || parts[0] != exobuild.FullBuildCommand || parts[1] != exobuild.DaemonBuildCommand ||
		!strings.HasPrefix(parts[2], "CGO_ENABLED=0 go build -o exo ./app/thin/exo") {
		t.Fatalf("README's quick start no longer starts with the three builds (exobuild builds them so): %s", cmd)
	}
	if !strings.Contains(cmd, "/tmp/exo-demo") {
		t.Fatalf("README's quick start names no scratch folder for the demo: %s", cmd)
	}
	home, clone, scratch := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "exo-demo")
	for _, name := range []string{"exo", "exo-full", "exo-daemon"} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(exoBin), name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(clone, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "-C", clone, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	rest := strings.ReplaceAll(strings.Join(parts[3:], " && "), "/tmp/exo-demo", scratch)
	stopDaemonAtEnd(t, home)
	scr := startTmux(t, 140, 40, "cd "+clone+" && export EXO_HOME="+home+" && "+rest+"; sleep 60")
	scr.waitFor("the app on the demo model", contains("demo scripted"))
	scr.waitFor("the session loaded", contains("◉1"))
	scr.keys("write me a hello script")
	scr.waitFor("the prompt typed", contains("› write me a hello script"))
	scr.keys("Enter")
	scr.waitFor("the demo's answer", contains("scripted demo model, not a real one"))
	if _, err := os.Stat(filepath.Join(scratch, "hello.py")); err != nil {
		t.Fatalf("the demo did not write hello.py in the scratch folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(clone, "hello.py")); err == nil {
		t.Fatal("the demo wrote hello.py into the clone")
	}
	scr.keys("C-q")
}
