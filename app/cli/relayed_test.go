package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"exo/harness/relay"
)

// The daemon relays a command line only when exo's own parsing finds the --home the thin
// client's scan found: a flag value that looks like --home must not send the command to the
// daemon of another EXO_HOME.
func TestRelayableAgreesOnHome(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
		home string
	}{
		{[]string{"sessions"}, true, ""},
		{[]string{"--home", "/b", "sessions"}, true, "/b"},
		{[]string{"log", "s", "--home=/b"}, true, "/b"},
		{[]string{"new", "--name", "--home=/b"}, false, ""},          // the session's name
		{[]string{"new", "--name", "--home", "/b"}, false, ""},       // its name, then a stray argument
		{[]string{"run", "--model", "--home=/b", "hi"}, false, ""},   // the model's name
		{[]string{"run", "--", "--home", "/b"}, true, ""},            // the prompt
		{[]string{"log", "--from", "x", "--home", "/b"}, true, "/b"}, // a usage error either way
		{[]string{"secret", "set", "k"}, false, ""},
	} {
		if got := relayable(c.args); got != c.want {
			t.Errorf("relayable(%q) = %v", c.args, got)
		}
		if got := homeFlag(c.args); got != c.home && c.want {
			t.Errorf("homeFlag(%q) = %q, want %q", c.args, got, c.home)
		}
	}
}

// A client that sends the daemon's EXO_HOME with a command line whose --home names another
// (not the thin exo, which sends the --home it found) is refused: the command would otherwise
// act on the daemon's home while its line says another.
func TestRelayedHomeMustMatchTheLine(t *testing.T) {
	run := (&env{}).relayCLI().Run
	var errb bytes.Buffer
	sio := relay.ServerIO{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &errb}
	inv := relay.Invocation{Args: []string{"--home", "/other/home", "sessions"}, Dir: "/work", Home: "/daemon/home"}
	if code := run(context.Background(), nil, inv, sio); code != ExitUsage || !strings.Contains(errb.String(), "--home is /other/home") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	inv = relay.Invocation{Args: []string{"sessions", "--home=rel"}, Dir: "/work", Home: "/daemon/home"}
	if code := run(context.Background(), nil, inv, sio); code != ExitUsage || !strings.Contains(errb.String(), "--home is /work/rel") {
		t.Fatalf("relative: exit %d, stderr %q", code, errb.String())
	}
}
