package crash

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// relayScript is a scripted model whose answer streams for about a second.
const relayScript = `name: relay
chunk: 2
delay: 15ms
turns:
  - text: "a streamed answer, long enough for a client to be killed in the middle of it."
`

// daemonPid returns the pid of home's running daemon (from daemon.json).
func daemonPid(t *testing.T, home string) int {
	t.Helper()
	var info struct{ Pid int }
	b, err := os.ReadFile(filepath.Join(home, "daemon.json"))
	if err != nil || json.Unmarshal(b, &info) != nil || info.Pid <= 0 {
		t.Fatalf("no running daemon in %s: %v", home, err)
	}
	return info.Pid
}

// fdCount counts a process's open file descriptors.
func fdCount(t *testing.T, pid int) int {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatalf("the daemon %d is gone: %v", pid, err)
	}
	return len(fds)
}

// connected says whether a process has a socket open (the thin exo reached the daemon).
func connected(pid int) bool {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && strings.HasPrefix(l, "socket:") {
			return true
		}
	}
	return false
}

// syncBuffer is a buffer a process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

// TestKillThinClientsAtEveryStep kills thin exo clients with SIGKILL at each step of a relayed
// command line (just started: before or during the upgrade; connected with stdin half sent;
// in the middle of their output; in the middle of a streamed turn), many times over. The
// daemon lives on, gets back to the file descriptors it had (no connection, goroutine's watch
// or file kept for a dead client), loses nothing committed, and serves the next command.
func TestKillThinClientsAtEveryStep(t *testing.T) {
	t.Setenv("EXO_DAEMON_IDLE", "10m") // the daemon counted must not idle out while the turns end
	home, ws := t.TempDir(), t.TempDir()
	script := filepath.Join(t.TempDir(), "relay.yaml")
	if err := os.WriteFile(script, []byte(relayScript), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRunIn(t, home, ws, "model", "register", "relay", "--provider", "scripted", "--base-url", script)
	id := strings.TrimSpace(mustRunIn(t, home, ws, "new", "--name", "k"))
	// every kind of command once, whole, so what the daemon opens for good (the session's
	// sandbox, the store's files) is open before the count
	mustRunIn(t, home, ws, "run", "--session", id, "warm up")
	mustRunIn(t, home, ws, "say", id, "warm")
	mustRunIn(t, home, ws, "log", id)
	pid := daemonPid(t, home)
	baseline := fdCount(t, pid)
	before := headSeq(t, home, id)

	type proc struct {
		cmd  *exec.Cmd
		out  *syncBuffer
		done chan struct{}
	}
	start := func(stdin io.Reader, args ...string) *proc {
		cmd := exec.Command(exoBin, args...)
		cmd.Dir, cmd.Env = ws, append(os.Environ(), "EXO_HOME="+home)
		p := &proc{cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, p.out, io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { cmd.Wait(); close(p.done) }()
		return p
	}
	exited := func(p *proc) bool {
		select {
		case <-p.done:
			return true
		default:
			return false
		}
	}
	waitFor := func(what string, p *proc, ok func() bool) {
		for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(2 * time.Millisecond) {
			if time.Now().After(deadline) {
				p.cmd.Process.Kill()
				t.Fatalf("%s: never happened", what)
			}
		}
	}
	kill := func(p *proc) {
		p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
	}
	const rounds = 6
	for i := 0; i < rounds; i++ {
		// just started: killed before it connects, or while it upgrades
		kill(start(nil, "sessions"))

		// connected, stdin half sent (exo say - reads it in the daemon)
		pr, pw := io.Pipe()
		p := start(pr, "say", id, "-")
		waitFor("exo say connected", p, func() bool { return exited(p) || connected(p.cmd.Process.Pid) })
		go pw.Write([]byte("half a message"))
		p.cmd.Process.Signal(syscall.SIGKILL)
		pw.Close() // exec's copy of stdin ends, so its Wait does
		<-p.done

		// in the middle of its output: exo tail prints the backlog, then follows
		p = start(nil, "tail", id)
		waitFor("exo tail printed", p, func() bool { return exited(p) || p.out.Len() > 0 })
		kill(p)

		// in the middle of a streamed turn (one still running from the round before refuses
		// the next at once: killed either way)
		p = start(nil, "run", "--session", id, fmt.Sprintf("turn %d", i))
		waitFor("exo run streamed or ended", p, func() bool { return exited(p) || p.out.Len() > 0 })
		kill(p)
	}

	// the daemon lives and closes what it had for the dead clients once their turns ended
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if daemonPid(t, home) != pid {
			t.Fatal("the daemon was replaced")
		}
		n := fdCount(t, pid)
		if n <= baseline+2 {
			break
		}
		if time.Now().After(deadline) {
			fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
			var links []string
			for _, fd := range fds {
				l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
				links = append(links, l)
			}
			t.Fatalf("the daemon holds %d file descriptors, %d before %d killed clients:\n%s", n, baseline, 4*rounds, strings.Join(links, "\n"))
		}
	}
	if v := mustRunIn(t, home, ws, "verify", id); !strings.Contains(v, "ok") {
		t.Fatalf("verify: %s", v)
	}
	if after := headSeq(t, home, id); after < before {
		t.Fatalf("the session's head went from %d back to %d", before, after)
	}
	if out := mustRunIn(t, home, ws, "say", id, "still here"); !strings.HasPrefix(out, "k@") {
		t.Fatalf("say after the kills: %q", out)
	}
	if daemonPid(t, home) != pid {
		t.Fatal("the daemon was replaced")
	}
}
