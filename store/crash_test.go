package store

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const crashEnv = "EXO_STORE_CRASH_CHILD"

// TestCrashChild is the child half of TestCrashKeepsAcknowledgedAppends: it appends in a loop
// and prints every acknowledged head until it is killed.
func TestCrashChild(t *testing.T) {
	home := os.Getenv(crashEnv)
	if home == "" {
		t.Skip("child process of the crash test")
	}
	s, err := Open(home, Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	if _, _, err := s.Head("main"); err != nil {
		s.NewBranch("main")
	}
	head, _, _ := s.Head("main")
	out := bufio.NewWriter(os.Stdout)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	for {
		n := 1 + rng.Intn(8)
		recs := make([]Record, n)
		for i := range recs {
			recs[i] = Record{Type: "crash.test", Actor: "harness", Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, head+uint64(i)+1))}
		}
		evs, err := s.Append("main", recs...)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		head = evs[len(evs)-1].Seq
		fmt.Fprintf(out, "ack %d\n", head)
		out.Flush()
	}
}

// TestCrashKeepsAcknowledgedAppends SIGKILLs an appending child 20 times at random moments;
// after each kill the database opens, verifies and holds every acknowledged append.
func TestCrashKeepsAcknowledgedAppends(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 20 processes")
	}
	home := t.TempDir()
	rng := rand.New(rand.NewSource(1))
	var acked uint64
	for round := 0; round < 20; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+home)
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		delay := time.Duration(30+rng.Intn(250)) * time.Millisecond
		deadline := time.After(delay)
		if round >= 15 && acked == 0 {
			// Under load a child may never get past start-up within the delay (kills during
			// start-up are worth having too): the last rounds count from its first ack.
			deadline = nil
		}
	wait:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break wait
				}
				if strings.HasPrefix(l, "error") {
					t.Fatalf("round %d: child: %s", round, l)
				}
				if v, err := strconv.ParseUint(strings.TrimPrefix(l, "ack "), 10, 64); err == nil {
					if deadline == nil {
						deadline = time.After(delay / 10)
					}
					acked = v
				}
			case <-deadline:
				cmd.Process.Signal(syscall.SIGKILL)
				break wait
			}
		}
		cmd.Wait()
		for l := range lines {
			if v, err := strconv.ParseUint(strings.TrimPrefix(l, "ack "), 10, 64); err == nil {
				acked = v
			}
		}
		checkAfterCrash(t, home, round, acked)
	}
	if acked == 0 {
		t.Fatal("the child never acknowledged an append")
	}
}

// checkAfterCrash opens the store, verifies it and checks every acknowledged event is there.
func checkAfterCrash(t *testing.T, home string, round int, acked uint64) {
	t.Helper()
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatalf("round %d: open after kill: %v", round, err)
	}
	defer s.Close()
	rep, err := s.VerifyAll()
	if err != nil || !rep.OK() {
		t.Fatalf("round %d: verify after kill: %+v %v", round, rep, err)
	}
	if acked == 0 {
		return
	}
	evs, err := s.ReadRange("main", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(evs)) < acked {
		t.Fatalf("round %d: %d events survive, %d were acknowledged", round, len(evs), acked)
	}
	for i, e := range evs {
		var d struct{ N uint64 }
		json.Unmarshal(e.Data, &d)
		if d.N != uint64(i+1) {
			t.Fatalf("round %d: event %d holds %d", round, e.Seq, d.N)
		}
	}
}
