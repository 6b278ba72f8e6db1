// Package mcpserve runs `exo mcp serve` and project trust end to end against the built exo
// binary, in a package of its own so that its time does not count against app/e2e's test
// timeout.
package mcpserve

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"exo/app/e2e/exobuild"
)

// exoBin is the exo binary built once for these tests.
var exoBin string

// secretValue is the sealed secret the tests search for in everything received.
const secretValue = "sk-test-5b1e8d2c9a7f4e3b8c6d0a1f2e3d4c5b"

func TestMain(m *testing.M) { exobuild.Main(m, "mcpserve", &exoBin) }

// stopDaemonAtEnd stops home's daemon when t ends (before t.TempDir removes home).
func stopDaemonAtEnd(t testing.TB, home string) { exobuild.StopDaemonAtEnd(t, exoBin, home) }

// exoEnv runs exo with EXO_HOME=home in dir, with extra environment, and returns stdout,
// stderr and the exit code.
func exoEnv(t *testing.T, home, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	return exobuild.Run(t, exoBin, home, dir, env, "", args...)
}

// mustRunIn runs exo in dir and fails the test on a non-zero exit.
func mustRunIn(t *testing.T, home, dir string, args ...string) string {
	t.Helper()
	out, errs, code := exoEnv(t, home, dir, nil, args...)
	if code != 0 {
		t.Fatalf("exo %v: exit %d: %s", args, code, errs)
	}
	return out
}

// tmuxScreen is exo's app running in a private tmux server.
type tmuxScreen struct {
	t      *testing.T
	socket string
}

// startTmux runs command in a w×h tmux session on a private socket.
func startTmux(t *testing.T, w, h int, command string) *tmuxScreen {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	s := &tmuxScreen{t: t, socket: fmt.Sprintf("exo-mcps-%d-%d", os.Getpid(), time.Now().UnixNano())}
	s.tmux("new-session", "-d", "-s", "e2e", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), command)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

// tmux runs a tmux command on the private socket.
func (s *tmuxScreen) tmux(args ...string) string {
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v %s", args, err, out)
	}
	return string(out)
}

// keys sends keys as tmux send-keys does.
func (s *tmuxScreen) keys(keys ...string) {
	s.tmux(append([]string{"send-keys", "-t", "e2e"}, keys...)...)
}

// waitFor waits until the screen shows text (never a fixed sleep), failing after 30 s.
func (s *tmuxScreen) waitFor(what, text string) {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		scr := s.tmux("capture-pane", "-p", "-t", "e2e")
		if strings.Contains(scr, text) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s; screen:\n%s", what, scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
