package daemon

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"exo/harness/daemon/wire"
)

// TestRunRefusesAnotherBuild: a daemon started by a client of another build (exo-daemon beside
// an exo-full built apart from it) reports wire.OtherBuild instead of "ready" and exits before
// it opens anything, so the client runs its own daemon; one of the same build goes on.
func TestRunRefusesAnotherBuild(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fd, err := syscall.Dup(int(w.Fd())) // the notifier closes the descriptor it is given
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Setenv(wire.ExpectBuildEnv, "not-"+BuildID())
	t.Setenv(wire.NotifyFDEnv, strconv.Itoa(fd))
	err = Run(RunOptions{Home: home})
	if err == nil || !strings.Contains(err.Error(), "build") {
		t.Fatalf("Run of another build: %v", err)
	}
	line, _ := bufio.NewReader(r).ReadString('\n')
	if want := wire.OtherBuild + "\t" + BuildID() + "\n"; line != want {
		t.Fatalf("reported %q, want %q", line, want)
	}
	if os.Getenv(wire.ExpectBuildEnv) != "" {
		t.Fatal("the expected build stays in the environment of what the daemon runs")
	}
	if ents, _ := os.ReadDir(home); len(ents) != 0 {
		t.Fatalf("a refused daemon wrote into EXO_HOME: %v", ents)
	}
}
