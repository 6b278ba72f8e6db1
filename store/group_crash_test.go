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
	"sync"
	"syscall"
	"testing"
	"time"

	"exo/store/failpoint"
)

// Environment of the child half of TestRealEtcdGroupCrash.
const (
	groupCrashEnv       = "EXO_STORE_GROUP_CRASH"
	groupCrashEndpoints = "EXO_STORE_GROUP_CRASH_ENDPOINTS"
	groupCrashHome      = "EXO_STORE_GROUP_CRASH_HOME"
)

// groupCrashWriters is how many goroutines of the child append at once, two on each branch.
const groupCrashWriters = 16

// TestGroupCrashChild is the child half of TestRealEtcdGroupCrash: as daemon NODE it appends
// from 16 goroutines at once (grouped commits, two writers on each branch) and prints every
// acknowledged append until it is killed. Started again on the same home, it goes on where
// the killed one left off, at once: the restart of a daemon that was killed.
func TestGroupCrashChild(t *testing.T) {
	spec := os.Getenv(groupCrashEnv) // NAMESPACE/NODE
	if spec == "" {
		t.Skip("child process of the group crash test")
	}
	ns, node, _ := strings.Cut(spec, "/")
	s, err := OpenEtcd(os.Getenv(groupCrashHome), EtcdConfig{Endpoints: strings.Split(os.Getenv(groupCrashEndpoints), ","), Namespace: ns, Node: node,
		DialTimeout: 5 * time.Second, RequestTimeout: 15 * time.Second}, Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	for b := range groupCrashWriters / 2 {
		if _, _, err := s.Head(fmt.Sprintf("%s-b%d", node, b)); err == nil {
			continue // a restart
		}
		if _, err := s.NewBranch(fmt.Sprintf("%s-b%d", node, b)); err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
	}
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(out, "ready")
	out.Flush()
	var wg sync.WaitGroup
	for w := range groupCrashWriters {
		wg.Go(func() {
			branch := fmt.Sprintf("%s-b%d", node, w/2)
			rng := rand.New(rand.NewSource(time.Now().UnixNano() + int64(w)))
			run := os.Getpid()
			for n := 0; ; n++ {
				id := fmt.Sprintf("%s-w%d-%d-%d", node, w, run, n)
				k := 1 + rng.Intn(4)
				recs := make([]Record, k)
				for i := range recs {
					recs[i] = Record{Type: "crash.group", Actor: "harness", Data: json.RawMessage(fmt.Sprintf(`{"id":%q,"part":%d,"of":%d}`, id, i, k))}
				}
				evs, err := s.Append(branch, recs...)
				mu.Lock()
				if err != nil {
					fmt.Fprintln(out, "error", err)
				} else {
					fmt.Fprintf(out, "ack %s %d %d %s\n", branch, evs[0].Seq, evs[len(evs)-1].Seq, id)
				}
				out.Flush()
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	os.Exit(3)
}

// groupAck is one append the child reported acknowledged.
type groupAck struct {
	branch      string
	first, last uint64
	id          string
}

// TestRealEtcdGroupCrash: a daemon appending from 16 goroutines at once (grouped commits) to a
// three-member cluster of etcd server processes is killed with SIGKILL: with a group formed and
// not yet sent, with a group committed and no member answered, with one member answered and the
// others not, and at random moments (a commit in flight); each time it is started again on the
// same home at once, and goes on (it was refused as another live daemon of its node name until
// the killed one's lease expired). After each kill every append that was acknowledged is stored where it was reported, each append is whole or absent (never some
// of its records), none is stored twice, seqs have no holes, and every hash chain verifies.
func TestRealEtcdGroupCrash(t *testing.T) {
	c := sharedReal(t)
	t.Parallel()
	ns := realNS("group-crash")
	reader := openNode(t, c.Endpoints, ns, "reader", 0)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	// each node is killed twice: the second time after a restart on the same home
	points := []string{"group.commit#4", "", "group.committed#4", "group.answering#6", "", "group.commit#9", "", ""}
	homes := map[string]string{}
	var acks []groupAck
	var branches []string
	for round, point := range points {
		node := fmt.Sprint("crash", round/2)
		if homes[node] == "" {
			homes[node] = t.TempDir()
			for b := range groupCrashWriters / 2 {
				branches = append(branches, fmt.Sprintf("%s-b%d", node, b))
			}
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestGroupCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), groupCrashEnv+"="+ns+"/"+node, groupCrashEndpoints+"="+strings.Join(c.Endpoints, ","),
			groupCrashHome+"="+homes[node], failpoint.Env+"="+point)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 4096)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		killAfter := 40 + rng.Intn(200) // acks before a random kill
		got := 0
	read:
		for line := range lines {
			f := strings.Fields(line)
			switch {
			case len(f) == 5 && f[0] == "ack":
				first, _ := strconv.ParseUint(f[2], 10, 64)
				last, _ := strconv.ParseUint(f[3], 10, 64)
				acks = append(acks, groupAck{branch: f[1], first: first, last: last, id: f[4]})
				if got++; point == "" && got == killAfter {
					_ = cmd.Process.Signal(syscall.SIGKILL)
					break read
				}
			case len(f) > 0 && f[0] == "error":
				_ = cmd.Process.Signal(syscall.SIGKILL)
				t.Fatalf("round %d: child: %s", round, line)
			}
		}
		for line := range lines { // what it printed before it died was acknowledged
			if f := strings.Fields(line); len(f) == 5 && f[0] == "ack" {
				first, _ := strconv.ParseUint(f[2], 10, 64)
				last, _ := strconv.ParseUint(f[3], 10, 64)
				acks = append(acks, groupAck{branch: f[1], first: first, last: last, id: f[4]})
			}
		}
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("round %d (%q): the child was not killed: %v\n%s", round, point, err, stderr.String())
		}
		if point != "" && !strings.Contains(stderr.String(), "failpoint") {
			t.Fatalf("round %d: failpoint %s did not fire:\n%s", round, point, stderr.String())
		}
		checkGroupCrash(t, reader, branches, acks)
		t.Logf("round %d (%q): %d appends acknowledged so far", round, point, len(acks))
	}
}

// checkGroupCrash checks what the killed children left (see TestRealEtcdGroupCrash).
func checkGroupCrash(t *testing.T, s *Store, branches []string, acks []groupAck) {
	t.Helper()
	type part struct{ of, seen int }
	appends := map[string]*part{}
	stored := map[string][]Event{}
	for _, b := range branches {
		head, _, err := s.Head(b)
		if err != nil {
			t.Fatalf("head of %s: %v", b, err)
		}
		evs, err := s.ReadRange(b, 1, head)
		if err != nil {
			t.Fatalf("read %s: %v", b, err)
		}
		if uint64(len(evs)) != head {
			t.Fatalf("%s: %d events below head %d", b, len(evs), head)
		}
		stored[b] = evs
		parts := map[string]bool{}
		for i, e := range evs {
			if e.Seq != uint64(i+1) {
				t.Fatalf("%s: event %d has seq %d", b, i+1, e.Seq)
			}
			var d struct {
				ID       string `json:"id"`
				Part, Of int
			}
			if err := json.Unmarshal(e.Data, &d); err != nil {
				t.Fatalf("%s seq %d: %v", b, e.Seq, err)
			}
			key := fmt.Sprint(d.ID, "/", d.Part)
			if parts[key] {
				t.Fatalf("%s: part %d of append %s stored twice", b, d.Part, d.ID)
			}
			parts[key] = true
			p := appends[d.ID]
			if p == nil {
				p = &part{of: d.Of}
				appends[d.ID] = p
			}
			p.seen++
		}
		rep, err := s.VerifyBranch(b)
		if err != nil || len(rep.Problems) > 0 {
			t.Fatalf("verify %s: %v %+v", b, err, rep.Problems)
		}
	}
	for id, p := range appends {
		if p.seen != p.of {
			t.Fatalf("append %s half-applied: %d of its %d records stored", id, p.seen, p.of)
		}
	}
	// Each acknowledged append is checked in the branch's history read above (a range read
	// of its own per append made the check the test's longest part, every round reading all
	// the rounds' appends again); the last one of each branch is read on its own as well.
	lastAck := map[string]int{}
	for i, a := range acks {
		lastAck[a.branch] = i
	}
	for i, a := range acks {
		all := stored[a.branch]
		var evs []Event
		if a.first >= 1 && a.first <= a.last && a.last <= uint64(len(all)) {
			evs = all[a.first-1 : a.last]
		}
		if lastAck[a.branch] == i {
			got, err := s.ReadRange(a.branch, a.first, a.last)
			if err != nil {
				t.Fatalf("acknowledged %s on %s: %v", a.id, a.branch, err)
			}
			if len(got) != len(evs) {
				t.Fatalf("acknowledged append %s (%s %d..%d): %d events read alone, %d in the branch's history", a.id, a.branch, a.first, a.last, len(got), len(evs))
			}
			evs = got
		}
		if uint64(len(evs)) != a.last-a.first+1 {
			t.Fatalf("acknowledged append %s (%s %d..%d) lost: %d events there", a.id, a.branch, a.first, a.last, len(evs))
		}
		for _, e := range evs {
			if !strings.Contains(string(e.Data), fmt.Sprintf("%q", a.id)) {
				t.Fatalf("acknowledged append %s at %s seq %d holds %s", a.id, a.branch, e.Seq, e.Data)
			}
		}
	}
}
