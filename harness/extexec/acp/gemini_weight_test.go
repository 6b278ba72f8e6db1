package acp

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// checkAgentCPUWeight checks that the agent's processes run in a cgroup weighing them as an
// ordinary process per core (the agent run directly), not at the PTY sandbox's weight of 50
// under which the Gemini CLI's steps queued for the CPU on a loaded machine; it says so and
// checks nothing more where the machine gives exo no cpu cgroup.
func checkAgentCPUWeight(t *testing.T, pr *proc) {
	t.Helper()
	want := uint64(min(100*runtime.NumCPU(), 10000))
	enf := pr.Enforcement()
	if enf == nil {
		t.Fatal("the agent runs without exo's confinement")
	}
	if enf.Limits.CPUWeight != want {
		t.Errorf("the agent's sandbox plans a CPU weight of %d, want %d", enf.Limits.CPUWeight, want)
	}
	if enf.CPUCgroup == "" {
		t.Logf("no cpu cgroup on this machine: the agent's CPU weight is not enforced here")
		return
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pr.Pid()))
	if err != nil {
		t.Fatal(err)
	}
	var dir string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		v1 := false
		for _, c := range strings.Split(parts[1], ",") {
			v1 = v1 || c == "cpu"
		}
		if v1 || parts[0] == "0" && parts[1] == "" && dir == "" {
			dir = filepath.Join(enf.CPUCgroup, filepath.Base(parts[2]))
		}
	}
	file, scaled := "cpu.weight", want
	if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
		file, scaled = "cpu.shares", want*1024/100
	}
	got, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatalf("the agent's cpu cgroup (%s): %v", b, err)
	}
	if v, _ := strconv.ParseUint(strings.TrimSpace(string(got)), 10, 64); v != scaled {
		t.Errorf("the agent's %s/%s is %s, want %d", dir, file, strings.TrimSpace(string(got)), scaled)
	}
}
