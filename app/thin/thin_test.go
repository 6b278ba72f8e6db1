package thin

import (
	"os/exec"
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
		if strings.Contains(first, ".") || first == "exo" && dep != "exo/app/thin" && dep != "exo/app/thin/exo" && dep != "exo/harness/relay" && dep != "exo/harness/rundir" {
			t.Errorf("the thin exo links %s", dep)
		}
	}
}
