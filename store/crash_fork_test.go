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

	"exo/store/failpoint"
)

const (
	forkCrashEnv = "EXO_STORE_FORK_CRASH_CHILD"
	// forkCrashEtcdEnv, when set, names the etcd endpoints (comma-separated) the child's
	// store is on, in the namespace forkCrashNSEnv names.
	forkCrashEtcdEnv = "EXO_STORE_FORK_CRASH_ETCD"
	forkCrashNSEnv   = "EXO_STORE_FORK_CRASH_NS"
)

// openForkCrashStore opens the crash test's store: bbolt in home, or etcd at endpoints, in
// namespace ns, as node.
func openForkCrashStore(home, endpoints, ns, node string) (*Store, error) {
	if endpoints == "" {
		return Open(home, Options{})
	}
	cfg := EtcdConfig{Endpoints: strings.Split(endpoints, ","), Namespace: ns, Node: node,
		DialTimeout: 5 * time.Second, RequestTimeout: 15 * time.Second, LeaseTTL: 2 * time.Second}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		s, err := OpenEtcd(home, cfg, Options{})
		// The node killed before holds its name until its lease expires.
		if err == nil || !strings.Contains(err.Error(), "node name is in use") || time.Now().After(deadline) {
			return s, err
		}
	}
}

// TestForkCrashChild is the child half of TestCrashDuringForkAndFirstAppend: it forks main,
// appends to the fork (its first append) and to main, in a loop, printing what was
// acknowledged, until it is killed. Its fork names start with the round given.
func TestForkCrashChild(t *testing.T) {
	home := os.Getenv(forkCrashEnv)
	if home == "" {
		t.Skip("child process of the fork crash test")
	}
	s, err := openForkCrashStore(home, os.Getenv(forkCrashEtcdEnv), os.Getenv(forkCrashNSEnv), "crash")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	if _, _, err := s.Head("main"); err != nil {
		if _, err := s.NewBranch("main"); err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
	}
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, a ...any) {
		fmt.Fprintf(out, format+"\n", a...)
		out.Flush()
	}
	fail := func(err error) {
		say("error %v", err)
		os.Exit(3)
	}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	for i := 0; ; i++ {
		head, _, err := s.Head("main")
		if err != nil {
			fail(err)
		}
		id := fmt.Sprintf("%s-%d", os.Getenv("EXO_STORE_FORK_ROUND"), i)
		at := uint64(rng.Int63n(int64(head) + 1))
		if _, err := s.Fork(id, "main", at); err != nil {
			fail(err)
		}
		failpoint.Hit("test.fork.after-commit")
		say("fork %s %d", id, at)
		n := 1 + rng.Intn(3)
		recs := make([]Record, n)
		for j := range recs {
			recs[j] = Record{Type: "crash.test", Actor: "harness", Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, at+uint64(j)+1))}
		}
		evs, err := s.Append(id, recs...)
		if err != nil {
			fail(err)
		}
		failpoint.Hit("test.first-append.after-commit")
		say("ack %s %d", id, evs[len(evs)-1].Seq)
		if _, err := s.Append("main", Record{Type: "crash.test", Actor: "harness", Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, head+1))}); err != nil {
			fail(err)
		}
	}
}

// TestCrashDuringForkAndFirstAppend SIGKILLs a child that forks and makes first appends: at
// each step of a fork (inside its transaction, right after its commit) and of a first append
// (events written but not the head record, everything written but not committed, right
// after the commit), then at random moments (fsync on, so many land inside bbolt's commit).
// After each kill the store opens undamaged, verifies, every acknowledged fork is there with
// its acknowledged events, and every branch's head reads.
func TestCrashDuringForkAndFirstAppend(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	t.Parallel()
	crashForks(t, "", "", 2, 8)
}

// TestRealEtcdCrashDuringForkAndFirstAppend is TestCrashDuringForkAndFirstAppend with the
// child's store on three etcd server processes: each child, as the same node, takes its
// branches back from the one killed before it; each check is made by another node.
func TestRealEtcdCrashDuringForkAndFirstAppend(t *testing.T) {
	c := sharedReal(t)
	t.Parallel()
	crashForks(t, strings.Join(c.Endpoints, ","), realNS("fork-crash"), 1, 2)
}

// crashForks runs the fork crash test on bbolt (endpoints empty) or etcd (in namespace ns):
// reps rounds per kill point, then random rounds.
func crashForks(t *testing.T, endpoints, ns string, reps, random int) {
	home := t.TempDir()
	points := []string{"store.branch.before-commit", "test.fork.after-commit", "store.first-append.before-head",
		"store.first-append.before-commit", "test.first-append.after-commit"}
	rng := rand.New(rand.NewSource(2))
	acked := map[string]uint64{} // fork → its last acknowledged seq (its fork seq until an append)
	for round := 0; round < reps*len(points)+random; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestForkCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), forkCrashEnv+"="+home, forkCrashEtcdEnv+"="+endpoints, forkCrashNSEnv+"="+ns, fmt.Sprint("EXO_STORE_FORK_ROUND=r", round))
		point := ""
		if round < reps*len(points) {
			point = fmt.Sprintf("%s#%d", points[round%len(points)], 1+rng.Intn(4))
			cmd.Env = append(cmd.Env, failpoint.Env+"="+point)
		}
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
		var deadline <-chan time.Time // random rounds: a while after the child's first line
		delay := time.Duration(5+rng.Intn(60)) * time.Millisecond
		read := func(l string) {
			f := strings.Fields(l)
			if len(f) > 0 && f[0] == "error" {
				t.Fatalf("round %d (%s): child: %s", round, point, l)
			}
			if len(f) == 3 && (f[0] == "fork" || f[0] == "ack") {
				v, _ := strconv.ParseUint(f[2], 10, 64)
				acked[f[1]] = v
			}
		}
	wait:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break wait
				}
				read(l)
				if point == "" && deadline == nil {
					deadline = time.After(delay)
				}
			case <-deadline:
				cmd.Process.Signal(syscall.SIGKILL)
				break wait
			}
		}
		err := cmd.Wait()
		for l := range lines {
			read(l)
		}
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("round %d (%s): the child was not killed: %v", round, point, err)
		}
		checkForksAfterCrash(t, home, endpoints, ns, round, point, acked)
	}
	t.Logf("%d forks acknowledged over the rounds", len(acked))
	if len(acked) < 10 {
		t.Fatalf("only %d forks were acknowledged in all rounds", len(acked))
	}
}

// checkForksAfterCrash opens the store after a kill and checks it is sound and holds every
// acknowledged fork and event.
func checkForksAfterCrash(t *testing.T, home, endpoints, ns string, round int, point string, acked map[string]uint64) {
	t.Helper()
	if endpoints != "" {
		home = t.TempDir() // another daemon's
	}
	s, err := openForkCrashStore(home, endpoints, ns, fmt.Sprint("check-", round))
	if err != nil {
		t.Fatalf("round %d (%s): open after kill: %v", round, point, err)
	}
	defer s.Close()
	if err := s.Damaged(); err != nil {
		t.Fatalf("round %d (%s): damaged after kill: %v", round, point, err)
	}
	if rep, err := s.VerifyAll(); err != nil || !rep.OK() {
		t.Fatalf("round %d (%s): verify after kill: %+v %v", round, point, rep, err)
	}
	all, err := s.Branches()
	if err != nil {
		t.Fatal(err)
	}
	for _, br := range all {
		head, _, err := s.Head(br.ID)
		if err != nil {
			t.Fatalf("round %d (%s): head of %s: %v", round, point, br.ID, err)
		}
		evs, err := s.ReadRange(br.ID, br.ForkSeq+1, 0)
		if err != nil || uint64(len(evs)) != head-br.ForkSeq {
			t.Fatalf("round %d (%s): %s: %d own events to head %d: %v", round, point, br.ID, len(evs), head, err)
		}
		for _, e := range evs {
			var d struct{ N uint64 }
			json.Unmarshal(e.Data, &d)
			if d.N != e.Seq {
				t.Fatalf("round %d (%s): %s@%d holds %d", round, point, br.ID, e.Seq, d.N)
			}
		}
	}
	for id, seq := range acked {
		head, _, err := s.Head(id)
		if err != nil || head < seq {
			t.Fatalf("round %d (%s): acknowledged %s at %d, head %d: %v", round, point, id, seq, head, err)
		}
	}
}
