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

// The controllers exo uses: pids caps the process count (and tracks each command's processes),
// memory caps the memory, cpu weighs the sandbox against other work.
const (
	ctlPids   = "pids"
	ctlMemory = "memory"
	ctlCPU    = "cpu"
)

// cgroupBase finds the folder under which exo can make cgroups with the controller ctl:
// exo's own cgroup in that controller's v1 hierarchy, or exo's own cgroup v2 when the
// controller is enabled for its children. It checks by making and removing one (which
// detects at run time what this machine offers); "" and the reason when there is none.
func cgroupBase(ctl string) (string, string) {
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Sprintf("%s cgroup: %v", ctl, err)
	}
	mounts, err := readMountInfo()
	if err != nil {
		return "", fmt.Sprintf("%s cgroup: %v", ctl, err)
	}
	var why []string
	for _, base := range cgroupCandidates(ctl, string(own), mounts) {
		if err := tryCgroup(ctl, base); err != nil {
			why = append(why, err.Error())
			continue
		}
		return base, ""
	}
	if len(why) == 0 {
		why = append(why, "no "+ctl+" controller mounted")
	}
	return "", ctl + " cgroup: " + strings.Join(why, "; ")
}

// pidsCgroupBase is cgroupBase for the pids controller.
func pidsCgroupBase() (string, string) { return cgroupBase(ctlPids) }

// cgroupCandidates lists the v1 folder of ctl and the v2 folder of exo's own cgroup.
func cgroupCandidates(ctl, own string, mounts []mountEntry) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(own), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, m := range mounts {
			v1 := m.fstype == "cgroup" && slices.Contains(strings.Split(parts[1], ","), ctl) && slices.Contains(m.super, ctl)
			v2 := m.fstype == "cgroup2" && parts[0] == "0" && parts[1] == ""
			if v1 || v2 {
				out = append(out, filepath.Join(m.point, parts[2]))
			}
		}
	}
	return out
}

// isV2 reports whether dir is in a cgroup v2 hierarchy.
func isV2(dir string) bool { return fileExists(filepath.Join(dir, "cgroup.controllers")) }

// tryCgroup makes and removes a capped cgroup under base (for cgroup v2 it first asks for the
// controller in base's children, which works where base has no processes).
func tryCgroup(ctl, base string) error {
	if c := filepath.Join(base, "cgroup.subtree_control"); fileExists(c) {
		os.WriteFile(c, []byte("+"+ctl), 0o644)
	}
	dir := filepath.Join(base, cgroupPrefix+newNonce())
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("%s cgroup %s: %w", ctl, base, err)
	}
	defer os.Remove(dir)
	var l Limits
	switch ctl {
	case ctlPids:
		l.Processes = 1
	case ctlMemory:
		l.Memory = minMemory
	case ctlCPU:
		l.CPUWeight = 100
	}
	return setCgroupLimits(ctl, dir, l)
}

// setCgroupLimits writes ctl's limit from l into the cgroup dir, in v1's or v2's terms.
func setCgroupLimits(ctl, dir string, l Limits) error {
	u := func(v uint64) []byte { return []byte(strconv.FormatUint(v, 10)) }
	var file string
	var val []byte
	v2 := isV2(dir)
	switch {
	case ctl == ctlPids:
		file, val = "pids.max", u(l.Processes)
	case ctl == ctlMemory && v2:
		os.WriteFile(filepath.Join(dir, "memory.swap.max"), []byte("0"), 0o644)
		file, val = "memory.max", u(l.Memory)
	case ctl == ctlMemory:
		file, val = "memory.limit_in_bytes", u(l.Memory)
	case ctl == ctlCPU && v2:
		file, val = "cpu.weight", u(min(max(l.CPUWeight, 1), 10000))
	case ctl == ctlCPU:
		file, val = "cpu.shares", u(max(l.CPUWeight*1024/100, 2)) // v1: 1024 is an ordinary process
	default:
		return fmt.Errorf("cgroup %s: unknown controller %s", dir, ctl)
	}
	if err := os.WriteFile(filepath.Join(dir, file), val, 0o644); err != nil {
		return fmt.Errorf("%s cgroup %s: %s: %w", ctl, dir, file, err)
	}
	return nil
}

// newCgroup makes one sandbox cgroup under the base folder of each controller in bases (v2
// bases are one folder, made once with every limit) and sets l's limits there. It returns the
// folders, the pids one first; leftovers of sandboxes that ended long ago are removed first.
func newCgroup(bases map[string]string, l Limits) (string, error) {
	name := cgroupPrefix + newNonce()
	var dirs []string
	fail := func(err error) (string, error) {
		for _, d := range dirs {
			os.Remove(d)
		}
		return "", err
	}
	for _, ctl := range []string{ctlPids, ctlMemory, ctlCPU} {
		base := bases[ctl]
		if base == "" {
			continue
		}
		dir := filepath.Join(base, name)
		if !slices.Contains(dirs, dir) {
			sweepCgroups(base)
			if err := os.Mkdir(dir, 0o755); err != nil {
				return fail(fmt.Errorf("%s cgroup %s: %w", ctl, base, err))
			}
			dirs = append(dirs, dir)
		}
		if err := setCgroupLimits(ctl, dir, l); err != nil {
			return fail(err)
		}
	}
	return strings.Join(dirs, ","), nil
}

// sweepCgroups removes exo's empty cgroups older than a minute (rmdir fails on busy ones),
// with the per-command cgroups inside them.
func sweepCgroups(base string) {
	ents, _ := os.ReadDir(base)
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), cgroupPrefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute {
			removeCgroupDir(filepath.Join(base, e.Name()))
		}
	}
}

// removeCgroupDir removes a cgroup and the empty cgroups below it.
func removeCgroupDir(dir string) error {
	subs, _ := os.ReadDir(dir)
	for _, s := range subs {
		if s.IsDir() {
			removeCgroupDir(filepath.Join(dir, s.Name()))
		}
	}
	return os.Remove(dir)
}

// joinCgroup moves the calling process into each cgroup of the comma-separated list dirs (in
// the helper, before anything else, so every process the sandbox starts is counted).
func joinCgroup(dirs string) error {
	for _, dir := range strings.Split(dirs, ",") {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte("0"), 0o644); err != nil {
			return fmt.Errorf("join cgroup %s: %w", dir, err)
		}
	}
	return nil
}

// cgroupOf returns the cgroup folders the helper command cmd joins, nil when none.
func cgroupOf(cmd *exec.Cmd) []string {
	i := slices.Index(cmd.Args, "--cgroup")
	if i < 0 || i+1 >= len(cmd.Args) {
		return nil
	}
	return strings.Split(cmd.Args[i+1], ",")
}

// removeCgroup removes the cgroups that the helper command cmd joined, once its processes are
// gone (it waits briefly for the last ones to be reaped).
func removeCgroup(cmd *exec.Cmd) {
	for _, dir := range cgroupOf(cmd) {
		for range 50 {
			if err := removeCgroupDir(dir); err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// fileExists reports whether p exists.
func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
