package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// cgroupPrefix names the cgroups exo makes, one per sandboxed process tree.
const cgroupPrefix = "exo-sandbox-"

// pidsCgroupBase finds the folder under which exo can make cgroups that cap a sandbox's
// process count with pids.max, which binds root too (RLIMIT_NPROC does not): exo's own
// cgroup in the pids controller's v1 hierarchy, or exo's own cgroup v2 when the pids
// controller is enabled for its children. It checks by making and removing one; "" and the
// reason when there is none.
func pidsCgroupBase() (string, string) {
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Sprintf("pids cgroup: %v", err)
	}
	mounts, err := readMountInfo()
	if err != nil {
		return "", fmt.Sprintf("pids cgroup: %v", err)
	}
	var why []string
	for _, base := range pidsCandidates(string(own), mounts) {
		if err := tryPidsCgroup(base); err != nil {
			why = append(why, err.Error())
			continue
		}
		return base, ""
	}
	if len(why) == 0 {
		why = append(why, "no pids controller mounted")
	}
	return "", "pids cgroup: " + strings.Join(why, "; ")
}

// pidsCandidates lists the v1 pids folder and the v2 folder of exo's own cgroup.
func pidsCandidates(own string, mounts []mountEntry) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(own), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, m := range mounts {
			v1 := m.fstype == "cgroup" && slices.Contains(strings.Split(parts[1], ","), "pids") && slices.Contains(m.super, "pids")
			v2 := m.fstype == "cgroup2" && parts[0] == "0" && parts[1] == ""
			if v1 || v2 {
				out = append(out, filepath.Join(m.point, parts[2]))
			}
		}
	}
	return out
}

// tryPidsCgroup makes and removes a capped cgroup under base (for cgroup v2 it first asks
// for the pids controller in base's children, which works where base has no processes).
func tryPidsCgroup(base string) error {
	if ctl := filepath.Join(base, "cgroup.subtree_control"); fileExists(ctl) {
		os.WriteFile(ctl, []byte("+pids"), 0o644)
	}
	dir, err := newPidsCgroup(base, 1)
	if err != nil {
		return err
	}
	return os.Remove(dir)
}

// newPidsCgroup makes a cgroup under base with pids.max = limit and returns its path;
// leftovers of sandboxes that ended long ago are removed first.
func newPidsCgroup(base string, limit uint64) (string, error) {
	sweepCgroups(base)
	dir := filepath.Join(base, cgroupPrefix+newNonce())
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", fmt.Errorf("pids cgroup %s: %w", base, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.FormatUint(limit, 10)), 0o644); err != nil {
		os.Remove(dir)
		return "", fmt.Errorf("pids cgroup %s: pids.max: %w", base, err)
	}
	return dir, nil
}

// sweepCgroups removes exo's empty cgroups older than a minute (rmdir fails on busy ones).
func sweepCgroups(base string) {
	ents, _ := os.ReadDir(base)
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), cgroupPrefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute {
			os.Remove(filepath.Join(base, e.Name()))
		}
	}
}

// joinCgroup moves the calling process into the cgroup dir (in the helper, before anything
// else, so every process the sandbox starts is counted).
func joinCgroup(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte("0"), 0o644); err != nil {
		return fmt.Errorf("join pids cgroup %s: %w", dir, err)
	}
	return nil
}

// removeCgroup removes the cgroup that the helper command cmd joined, once its processes are
// gone (it waits briefly for the last ones to be reaped).
func removeCgroup(cmd *exec.Cmd) {
	i := slices.Index(cmd.Args, "--cgroup")
	if i < 0 || i+1 >= len(cmd.Args) {
		return
	}
	dir := cmd.Args[i+1]
	for range 50 {
		if err := os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// fileExists reports whether p exists.
func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
