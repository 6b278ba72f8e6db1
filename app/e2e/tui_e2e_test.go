package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tmuxScreen drives the real exo binary in a detached tmux session and reads its screen.
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
	s := &tmuxScreen{t: t, socket: fmt.Sprintf("exo-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	s.tmux("new-session", "-d", "-s", "e2e", "-x", itoa(w), "-y", itoa(h), command)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }

// tmux runs a tmux command on the private socket.
func (s *tmuxScreen) tmux(args ...string) string {
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v %s", args, err, out)
	}
	return string(out)
}

// keys sends keys as tmux send-keys does (names like Enter, Tab, or literal text).
func (s *tmuxScreen) keys(keys ...string) {
	s.tmux(append([]string{"send-keys", "-t", "e2e"}, keys...)...)
}

// screen returns the visible screen.
func (s *tmuxScreen) screen() string { return s.tmux("capture-pane", "-p", "-t", "e2e") }

// waitFor waits until cond holds for the screen (never a fixed sleep), failing after 20 s.
func (s *tmuxScreen) waitFor(what string, cond func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		scr := s.screen()
		if cond(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s; screen:\n%s", what, scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// contains is a waitFor condition: the screen shows text.
func contains(text string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, text) }
}

// TestTUIEndToEnd drives exo in a terminal as a person would, with the scripted model: a prompt
// streams an answer and runs a tool (sandbox pane, file on disk); scrubbing the timeline and f
// forks a sibling with its own workspace; r rewinds the conversation and the files; s shows two
// sessions side by side.
func TestTUIEndToEnd(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	if _, errs, code := run(t, home, "model", "register", "demo", "--provider", "scripted"); code != 0 {
		t.Fatal(errs)
	}
	stopDaemonAtEnd(t, home)
	scr := startTmux(t, 160, 48, "cd "+ws+" && EXO_HOME="+home+" "+exoBin+" --theme dark")
	scr.waitFor("the prompt box", contains("ask, /command or !shell"))
	scr.waitFor("the scripted label", contains("demo scripted"))

	scr.keys("write me a hello script", "Enter")
	scr.waitFor("the streamed answer", contains("scripted demo model, not a real one"))
	scr.waitFor("the tool's output in the sandbox pane", contains("hello from exo on Python"))
	if _, err := os.Stat(filepath.Join(ws, "hello.py")); err != nil {
		t.Fatal("the tool did not write hello.py")
	}

	scr.keys("Tab", "Tab", "M-k", "M-k") // scrub the timeline: the conversation travels back
	scr.waitFor("the time-travel preview", contains("preview as of seq"))
	scr.keys("M-/", "invocation", "Enter") // filter the timeline down to the prompt
	scr.waitFor("the filtered timeline", contains("filter: invocation"))
	scr.keys("M-f")
	forkSeq := seqOfFork(scr.waitFor("the fork to finish", contains("with its own workspace")))
	scr.waitFor("the new sibling", contains("└"))
	forks, _ := filepath.Glob(filepath.Join(home, "workspaces", "*"))
	if len(forks) != 1 {
		t.Fatalf("fork workspaces: %v", forks)
	}
	if _, err := os.Stat(filepath.Join(forks[0], "hello.py")); err == nil {
		t.Fatal("the fork at the prompt has hello.py, written after it")
	}

	scr.keys("M-r")
	scr.waitFor("the rewind confirmation", contains("Rewind?"))
	scr.keys("y")
	scr.waitFor("the files restored", contains("files restored to @"+forkSeq))
	if _, err := os.Stat(filepath.Join(ws, "hello.py")); err == nil {
		t.Fatal("hello.py is still there after rewinding to before it was written")
	}

	scr.keys("M-b") // the abandoned branch stays reachable
	scr.waitFor("the abandoned branch in the timeline", contains("timeline: abandoned branch"))
	scr.keys("M-b")
	scr.waitFor("the live branch again", contains("timeline: the live branch"))
	scr.keys("Escape") // clear the filter (alone: a lone ESC followed by a key would read as alt+key)
	scr.waitFor("the filter cleared", func(s string) bool { return !strings.Contains(s, "filter: invocation") })
	scr.keys("Tab", "M-j", "M-s")
	scr.waitFor("two sessions side by side", func(s string) bool {
		return strings.Count(s, "› write me a hello script") >= 2
	})
	scr.keys("C-q")
}

// seqOfFork reads the event number from the status message of a fork.
func seqOfFork(screen string) string {
	_, rest, _ := strings.Cut(screen, " at event ")
	f := strings.Fields(rest)
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}
