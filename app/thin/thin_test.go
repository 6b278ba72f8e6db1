package thin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestRelayableAndHomeArg(t *testing.T) {
	for _, c := range []struct {
		args     []string
		relay    bool
		homeFlag string
	}{
		{nil, false, ""},                                   // the app
		{[]string{"-r"}, false, ""},                        // the picker
		{[]string{"run", "hi"}, true, ""},                  // a turn
		{[]string{"sessions", "--json"}, true, ""},         // a list
		{[]string{"--home", "/x", "sessions"}, true, "/x"}, // the global flag first
		{[]string{"--home=/x", "log", "s"}, true, "/x"},
		{[]string{"--home", "/x"}, false, "/x"},                            // the app on another home
		{[]string{"--home", "/x", "-r"}, false, "/x"},                      // the picker
		{[]string{"run", "--home=rel", "hi"}, true, "rel"},                 // --home after the command
		{[]string{"run", "--", "--home", "x"}, true, ""},                   // after -- it is the prompt
		{[]string{"daemon", "stop"}, false, ""},                            // lifecycle
		{[]string{"secret", "set", "K"}, false, ""},                        // reads the terminal
		{[]string{"exec", "s", "--", "ls"}, false, ""},                     // a PTY
		{[]string{"model", "register", "x"}, false, ""},                    // reads keys from the environment
		{[]string{"--version"}, false, ""},                                 // the full exo's version
		{[]string{"tail", "s", "--home", "/h"}, true, "/h"},                // long-running, relayed
		{[]string{"log", "s", "--home", "/a", "--home", "/b"}, true, "/b"}, // the last one wins, as with cobra
	} {
		if got := Relayable(c.args); got != c.relay {
			t.Errorf("Relayable(%q) = %v", c.args, got)
		}
		if got := HomeArg(c.args); got != c.homeFlag {
			t.Errorf("HomeArg(%q) = %q, want %q", c.args, got, c.homeFlag)
		}
	}
}

// Without exo-full anywhere, exo says what is missing and how to build it.
func TestFullBinaryMissing(t *testing.T) {
	t.Setenv("EXO_FULL", "")
	t.Setenv("PATH", t.TempDir())
	_, err := FullBinary()
	if err == nil || !strings.Contains(err.Error(), "exo-full") || !strings.Contains(err.Error(), "go build") {
		t.Fatalf("FullBinary: %v", err)
	}
	t.Setenv("EXO_FULL", "/opt/exo-full")
	if p, err := FullBinary(); err != nil || p != "/opt/exo-full" {
		t.Fatalf("EXO_FULL: %q %v", p, err)
	}
}

// The thin exo links no package of the TUI, the model SDKs, gRPC or the store: each would add
// its initialisation to every command's start-up.
func TestThinLinksNoHeavyPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "exo/app/thin/exo").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v %s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		first, _, _ := strings.Cut(dep, "/")
		if strings.Contains(first, ".") || first == "exo" && dep != "exo/app/thin" && dep != "exo/app/thin/exo" && dep != "exo/harness/relay" && dep != "exo/harness/rundir" && dep != "exo/app/thin/help" {
			t.Errorf("the thin exo links %s", dep)
		}
	}
}

// plant writes an executable exo-full into dir.
func plant(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, FullName)
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho planted\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// A relative EXO_FULL or PATH entry would make exo run whatever exo-full the current directory
// holds (a repository an agent writes): exo never does, and says why when that is all it found.
func TestFullBinaryNeverFromTheCurrentDirectory(t *testing.T) {
	cwd := t.TempDir()
	t.Chdir(cwd)
	plant(t, cwd)
	os.Mkdir(filepath.Join(cwd, "bin"), 0o755)
	plant(t, filepath.Join(cwd, "bin"))

	t.Setenv("EXO_FULL", "exo-full")
	if p, err := FullBinary(); err == nil || !strings.Contains(err.Error(), "EXO_FULL=exo-full is not an absolute path") {
		t.Fatalf("relative EXO_FULL: %q %v", p, err)
	}
	t.Setenv("EXO_FULL", "")
	for _, path := range []string{".", ":", "/nonexistent:", "bin", "./bin:."} {
		t.Setenv("PATH", path)
		p, err := FullBinary()
		if err == nil || !strings.Contains(err.Error(), "relative entry") || !strings.Contains(err.Error(), "EXO_FULL") {
			t.Fatalf("PATH=%q: %q %v", path, p, err)
		}
	}
	// an absolute folder later on PATH is used; the planted one before it is passed over
	real := t.TempDir()
	want := plant(t, real)
	t.Setenv("PATH", ".:bin:"+real)
	if p, err := FullBinary(); err != nil || p != want {
		t.Fatalf("PATH with an absolute folder after relative ones: %q %v", p, err)
	}
	// a file that is not executable does not count
	os.Chmod(want, 0o644)
	if p, err := FullBinary(); err == nil {
		t.Fatalf("a non-executable exo-full: %q", p)
	}
}

// An EXO_FULL that is this very binary would have each exo run the other forever.
func TestFullBinaryIsNotItself(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "exo-full")
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{self, link} {
		t.Setenv("EXO_FULL", p)
		if got, err := FullBinary(); err == nil || !strings.Contains(err.Error(), "this thin exo itself") {
			t.Fatalf("EXO_FULL=%s: %q %v", p, got, err)
		}
	}
}
