package sandbox

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Detached is a group of processes a command left running when it ended (`cmd &`, nohup,
// setsid, a double fork): listed, watched, and killed at the end of the turn (EndTurn) unless
// the agent started them as background tasks on purpose.
type Detached struct {
	ID         string    // ID is "detached-N", unique within the shell.
	Command    string    // Command is the command that left them.
	Pids       []int     // Pids are the processes still running (empty once ended).
	Started    time.Time // Started is when the command ended and left them.
	Ended      time.Time // Ended is when the last one exited or was killed (zero while running).
	KillReason string    // KillReason says why they were killed ("" when they exited by themselves).
}

// Running reports whether some of the group's processes are still running.
func (d Detached) Running() bool { return d.Ended.IsZero() }

// detachedGroup is one Detached and the cgroup (or, without one, the pids) that holds it.
type detachedGroup struct {
	mu    sync.Mutex
	info  Detached
	cg    string         // the command's own pids cgroup, "" without cgroups
	start map[int]uint64 // without cgroups: each pid's start time, so a reused pid is not taken for it
	// Without cgroups, rescan lists the processes around the shell again, so that one forked
	// after the command ended (setsid's child, a process a leftover starts later) joins the
	// group: before is what was there when the command began, shell the shell's pid, whose
	// descendants (a later command's) are not the group's.
	rescan func() []int
	before map[int]bool
	shell  int
	stop   chan struct{}
	ended  chan struct{}
}

// bombCheck is how often a detached group is looked at for a fork bomb and for its end.
const bombCheck = 50 * time.Millisecond

// procs lists the group's live processes.
func (g *detachedGroup) procs() []int {
	if g.cg != "" {
		return cgroupProcs(g.cg)
	}
	g.join()
	g.mu.Lock()
	defer g.mu.Unlock()
	var live []int
	for _, pid := range g.info.Pids {
		if g.start != nil && procStart(pid) != g.start[pid] {
			continue
		}
		if st, ok := statState(pid); ok && st != 'Z' {
			live = append(live, pid)
		}
	}
	return live
}

// join adds to a group without a cgroup the processes that appeared around the shell since its
// command began and belong to no later command (they are not the shell's descendants).
func (g *detachedGroup) join() {
	if g.rescan == nil {
		return
	}
	var mine map[int]bool
	for _, pid := range g.rescan() {
		g.mu.Lock()
		_, known := g.start[pid]
		ended := !g.info.Ended.IsZero()
		g.mu.Unlock()
		if known || ended || g.before[pid] || pid == g.shell {
			continue
		}
		if mine == nil {
			mine = map[int]bool{}
			for _, d := range descendants(g.shell) {
				mine[d] = true
			}
		}
		if mine[pid] {
			continue
		}
		g.mu.Lock()
		g.info.Pids = append(g.info.Pids, pid)
		g.start[pid] = procStart(pid)
		g.mu.Unlock()
	}
}

// kill kills every process of the group and marks it ended for reason.
func (g *detachedGroup) kill(reason string) {
	if g.cg != "" {
		killCgroup(g.cg)
	} else {
		deadline := time.Now().Add(killCgroupWait)
		for pids := g.procs(); len(pids) > 0 && time.Now().Before(deadline); pids = g.procs() {
			for _, pid := range pids {
				killTree(pid, pid)
				syscall.Kill(pid, syscall.SIGKILL)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	g.end(reason)
}

// end marks the group ended (once) and removes its cgroup.
func (g *detachedGroup) end(reason string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.info.Ended.IsZero() {
		return
	}
	g.info.Ended, g.info.KillReason, g.info.Pids = time.Now(), reason, nil
	if g.cg != "" {
		for range 50 {
			if os.Remove(g.cg) == nil || !fileExists(g.cg) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	close(g.ended)
}

// watch ends the group when its processes are gone and kills it as a fork bomb when the
// sandbox's process cap refuses forks (sandboxCg's pids.events) while it holds more than a few
// processes, or when it holds half the cap by itself.
func (g *detachedGroup) watch(sandboxCg string, limit uint64) {
	t := time.NewTicker(bombCheck)
	defer t.Stop()
	refused := pidsRefused(sandboxCg)
	for {
		select {
		case <-g.stop:
			return
		case <-t.C:
		}
		pids := g.procs()
		if len(pids) == 0 {
			g.end("")
			return
		}
		now := pidsRefused(sandboxCg)
		if (now > refused && len(pids) >= 16) || uint64(len(pids)) >= limit/2 {
			g.kill(fmt.Sprintf("fork bomb: the processes it left reached the sandbox's process cap (%d)", limit))
			return
		}
		refused = now
		g.mu.Lock()
		if g.info.Ended.IsZero() {
			g.info.Pids = pids
		}
		g.mu.Unlock()
	}
}

// snapshot returns a copy of the group's state.
func (g *detachedGroup) snapshot() Detached {
	g.mu.Lock()
	defer g.mu.Unlock()
	d := g.info
	d.Pids = slices.Clone(d.Pids)
	return d
}

// Detached lists the process groups commands left behind, running or ended, oldest first.
func (s *Shell) Detached() []Detached {
	s.dmu.Lock()
	defer s.dmu.Unlock()
	out := make([]Detached, 0, len(s.detached))
	for _, g := range s.detached {
		out = append(out, g.snapshot())
	}
	return out
}

// KillDetached kills one group of detached processes by its ID.
func (s *Shell) KillDetached(id string) (Detached, error) {
	s.dmu.Lock()
	i := slices.IndexFunc(s.detached, func(g *detachedGroup) bool { return g.info.ID == id })
	s.dmu.Unlock()
	if i < 0 {
		return Detached{}, fmt.Errorf("detached processes %s: %w", id, ErrNoTask)
	}
	g := s.detached[i]
	g.kill("killed by request")
	return g.snapshot(), nil
}

// EndTurn ends what a turn leaves in the sandbox: it kills every group of detached processes
// still running (returning them) and removes the files left in the tmp dir (the shell's own
// control folder stays). Background tasks (TaskManager) are kept: they were started on purpose.
func (s *Shell) EndTurn() ([]Detached, error) {
	s.dmu.Lock()
	groups := slices.Clone(s.detached)
	var keep []*detachedGroup
	for _, g := range s.detached {
		if g.snapshot().Running() {
			keep = append(keep, g)
		}
	}
	s.detached = keep
	s.dmu.Unlock()
	var killed []Detached
	for _, g := range groups {
		if g.snapshot().Running() {
			g.kill("the turn ended")
			killed = append(killed, g.snapshot())
		}
	}
	s.dmu.Lock()
	s.detached = slices.DeleteFunc(s.detached, func(g *detachedGroup) bool { return !g.snapshot().Running() })
	s.dmu.Unlock()
	s.sweepLeftovers()
	return killed, s.cleanTmp()
}

// sweepLeftovers kills, where the sandbox has no pids cgroup (there the groups hold everything),
// every process around the idle shell but the shell: at a turn's end no command runs, so each is
// something a command left, one forked after its command ended included (setsid's child, kept
// in the tree by the subreaper the helper makes of the shell). Background tasks run apart.
func (s *Shell) sweepLeftovers() {
	if s.enf.PidsCgroup != "" {
		return
	}
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if p == nil || p.dead() {
		return
	}
	shell := p.cmd.Process.Pid
	for range 20 {
		left := slices.DeleteFunc(p.around(), func(pid int) bool { return pid == shell })
		if len(left) == 0 {
			return
		}
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// cleanTmp removes everything in the tmp dir but the shell's control folder: in the running
// shell's tmpfs (reached through its /proc root) when the tmp dir has a quota, and on disk.
// It never follows a link nor crosses into another mount.
func (s *Shell) cleanTmp() error {
	roots := []string{"/"}
	if pid := s.Pid(); pid > 0 && s.enf.TmpQuota {
		roots = append(roots, fmt.Sprintf("/proc/%d/root", pid))
	}
	var errs []string
	for _, root := range roots {
		fd, err := openTmpView(root, s.cfg.TmpDir)
		if err != nil {
			continue // no tmp dir there (yet)
		}
		var busy map[string]bool
		var st unix.Stat_t
		if root != "/" && unix.Fstat(fd, &st) == nil {
			busy = busyPaths(root, st.Dev)
		}
		if err := emptyDir(fd, busy, ctlDirName); err != nil {
			errs = append(errs, err.Error())
		}
		unix.Close(fd)
	}
	if len(errs) > 0 {
		return fmt.Errorf("clean the sandbox's tmp dir: %s", strings.Join(errs, "; "))
	}
	return nil
}

// closeDetached kills every group still running (the shell is closing).
func (s *Shell) closeDetached() {
	s.dmu.Lock()
	groups := s.detached
	s.detached = nil
	s.dmu.Unlock()
	for _, g := range groups {
		close(g.stop)
		if g.snapshot().Running() {
			g.kill("the sandbox closed")
		}
	}
}
