package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// cmdTrack follows one command's processes: the command's own pids cgroup below the sandbox's,
// which the shell enters for the command and leaves when it ends, so every process the command
// starts, detached or not, is in it; without cgroups, the processes found around the shell.
type cmdTrack struct {
	sandboxCg string // the sandbox's pids cgroup, "" without one
	memCg     string // the sandbox's memory cgroup, "" without one
	cg        string // the command's pids cgroup, "" without one
	refused   uint64 // forks the process cap refused before the command
	ooms      uint64 // processes killed for the memory cap before the command
	before    []int  // without cgroups: processes around the shell before the command
}

// cgroupUnder returns the folder of p's sandbox cgroups that is under base, "" when none.
func (p *shellProc) cgroupUnder(base string) string {
	if base == "" {
		return ""
	}
	for _, dir := range cgroupOf(p.cmd) {
		if filepath.Dir(dir) == filepath.Clean(base) {
			return dir
		}
	}
	return ""
}

// around lists the processes around the shell: every other process of its PID namespace, else
// those below it or in its session.
func (p *shellProc) around() []int {
	pid := p.cmd.Process.Pid
	if ns := nsMembers(pid); ns != nil {
		return ns
	}
	return descendants(pid)
}

// beginCommand moves the shell into a new pids cgroup of the command's (when the sandbox has
// one) and notes the counters the end compares against.
func (s *Shell) beginCommand(p *shellProc) cmdTrack {
	t := cmdTrack{sandboxCg: p.cgroupUnder(s.enf.PidsCgroup), memCg: p.cgroupUnder(s.enf.MemCgroup)}
	t.refused, t.ooms = pidsRefused(t.sandboxCg), oomKills(t.memCg)
	if t.sandboxCg == "" {
		t.before = p.around()
		return t
	}
	cg := filepath.Join(t.sandboxCg, "cmd-"+newNonce())
	if err := os.Mkdir(cg, 0o755); err != nil {
		t.before = p.around()
		return t
	}
	if err := moveToCgroup(p.cmd.Process.Pid, cg); err != nil {
		os.Remove(cg)
		t.before = p.around()
		return t
	}
	t.cg = cg
	return t
}

// endCommand moves the shell back to the sandbox's cgroup and deals with what the command left:
// a fork bomb (the process cap refused forks) and a killed or timed-out command's processes are
// killed now; other processes become a listed Detached group, ended with the turn. It notes in
// r what the caps stopped.
func (s *Shell) endCommand(p *shellProc, t cmdTrack, command string, r *Result) {
	if t.cg != "" {
		moveToCgroup(p.cmd.Process.Pid, t.sandboxCg)
	}
	if n := oomKills(t.memCg); t.memCg != "" && n > t.ooms {
		r.Notes = append(r.Notes, fmt.Sprintf("the sandbox's memory cap (%s) was reached: the kernel killed %d process(es) of it ([sandbox] memory in config.toml raises the cap)",
			fmtLimit(s.enf.Limits.Memory, true), n-t.ooms))
	}
	bomb := t.sandboxCg != "" && pidsRefused(t.sandboxCg) > t.refused
	if bomb {
		r.Notes = append(r.Notes, fmt.Sprintf("the command reached the sandbox's process cap (%d): forks were refused (a fork bomb?)", s.enf.Limits.Processes))
	}
	g := &detachedGroup{info: Detached{Command: command, Started: time.Now()}, cg: t.cg, stop: make(chan struct{}), ended: make(chan struct{})}
	if t.cg == "" {
		g.start, g.rescan, g.shell, g.before = map[int]uint64{}, p.around, p.cmd.Process.Pid, map[int]bool{}
		for _, pid := range t.before {
			g.before[pid] = true
		}
		for _, pid := range p.around() {
			if !g.before[pid] {
				g.info.Pids = append(g.info.Pids, pid)
				g.start[pid] = procStart(pid)
			}
		}
	}
	left := g.procs()
	if len(left) == 0 {
		if t.cg != "" {
			os.Remove(t.cg)
		}
		return
	}
	if bomb || r.Killed {
		killCgroupOr(g)
		r.Notes = append(r.Notes, fmt.Sprintf("%d process(es) the command left running were killed", len(left)))
		return
	}
	s.dmu.Lock()
	s.pruneEnded()
	s.dseq++
	g.info.ID, g.info.Pids = fmt.Sprintf("detached-%d", s.dseq), left
	s.detached = append(s.detached, g)
	s.dmu.Unlock()
	r.Detached = g.info.ID
	go g.watch(t.sandboxCg, s.enf.Limits.Processes)
	r.Notes = append(r.Notes, fmt.Sprintf("%d process(es) the command left running (pids %s) are listed as %s and end with the turn; start them with a background task to keep them",
		len(left), pidList(left), g.info.ID))
}

// killCgroupOr kills a group that is not listed (its end needs no record).
func killCgroupOr(g *detachedGroup) {
	g.kill("killed with its command")
}

// pidList renders at most 8 pids.
func pidList(pids []int) string {
	var parts []string
	for i, p := range pids {
		if i == 8 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprint(p))
	}
	return strings.Join(parts, " ")
}

// keepEnded is how many ended groups of detached processes stay listed between turns.
const keepEnded = 16

// pruneEnded drops the oldest ended groups beyond keepEnded; call it with dmu held.
func (s *Shell) pruneEnded() {
	ended := 0
	for _, g := range s.detached {
		if !g.snapshot().Running() {
			ended++
		}
	}
	s.detached = slices.DeleteFunc(s.detached, func(g *detachedGroup) bool {
		if ended > keepEnded && !g.snapshot().Running() {
			ended--
			return true
		}
		return false
	})
}
