package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Capabilities reports which isolation mechanisms the host supports, for exo doctor.
type Capabilities struct {
	PTY         bool     // PTY is true when a pseudo-terminal can be opened.
	UserNS      bool     // UserNS is true when unprivileged user namespaces work.
	NetNS       bool     // NetNS is true when a network namespace can be created with a user namespace.
	MountNS     bool     // MountNS is true when a mount namespace can be created with a user namespace.
	PidNS       bool     // PidNS is true when a PID namespace can be created with user and mount namespaces.
	LandlockABI int      // LandlockABI is the Landlock ABI version, 0 when unavailable.
	Seccomp     bool     // Seccomp is true when the filter refusing set-id files installs and works.
	Openat2     bool     // Openat2 is true when exo's own file access resolves paths with openat2.
	PidsCgroup  string   // PidsCgroup is the cgroup folder under which sandboxes get a pids.max (binding root), "" when none is writable.
	MemCgroup   string   // MemCgroup is the cgroup folder under which sandboxes get a memory cap, "" when none is writable.
	CPUCgroup   string   // CPUCgroup is the cgroup folder under which sandboxes get a CPU weight, "" when none is writable.
	Rlimits     bool     // Rlimits is true when resource limits can be read and set.
	Git         string   // Git is the output of git --version, empty when git is missing.
	Errors      []string // Errors explains each failed probe.
}

// Probe detects at run time what the host supports; it starts a few short processes.
func Probe() Capabilities {
	var c Capabilities
	if p, t, err := pty.Open(); err == nil {
		c.PTY = true
		p.Close()
		t.Close()
	} else {
		c.Errors = append(c.Errors, fmt.Sprintf("pty: %v", err))
	}
	c.UserNS = tryClone(syscall.CLONE_NEWUSER, &c)
	c.NetNS = c.UserNS && tryClone(syscall.CLONE_NEWUSER|syscall.CLONE_NEWNET, &c)
	c.MountNS = c.UserNS && tryClone(syscall.CLONE_NEWUSER|syscall.CLONE_NEWNS, &c)
	c.PidNS = c.MountNS && tryClone(syscall.CLONE_NEWUSER|syscall.CLONE_NEWNS|syscall.CLONE_NEWPID, &c)
	c.LandlockABI = landlockABI()
	var why string
	if c.Seccomp, why = probeSeccomp(); why != "" {
		c.Errors = append(c.Errors, why)
	}
	c.Openat2 = HasOpenat2()
	if c.PidsCgroup, why = pidsCgroupBase(); why != "" {
		c.Errors = append(c.Errors, why)
	}
	if c.MemCgroup, why = cgroupBase(ctlMemory); why != "" {
		c.Errors = append(c.Errors, why)
	}
	if c.CPUCgroup, why = cgroupBase(ctlCPU); why != "" {
		c.Errors = append(c.Errors, why)
	}
	var rl unix.Rlimit
	c.Rlimits = unix.Getrlimit(unix.RLIMIT_AS, &rl) == nil
	if out, err := exec.Command("git", "--version").Output(); err == nil {
		c.Git = strings.TrimSpace(string(out))
	}
	return c
}

// String renders the capabilities one per line.
func (c Capabilities) String() string {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	ll := "no"
	if c.LandlockABI > 0 {
		ll = fmt.Sprintf("ABI %d", c.LandlockABI)
	}
	pids := "no (RLIMIT_NPROC only, which does not bind root)"
	if c.PidsCgroup != "" {
		pids = "pids.max under " + c.PidsCgroup
	}
	mem, cpu := "no (RLIMIT_AS instead)", "no"
	if c.MemCgroup != "" {
		mem = "under " + c.MemCgroup
	}
	if c.CPUCgroup != "" {
		cpu = "under " + c.CPUCgroup
	}
	git := c.Git
	if git == "" {
		git = "missing"
	}
	return fmt.Sprintf("pty: %s\nuser namespaces: %s\nnetwork namespaces: %s\nmount namespaces: %s\npid namespaces: %s\nlandlock: %s\nrlimits: %s\nseccomp (no set-id files): %s\nopenat2 (exo's own file access): %s\nprocess cap binding root: %s\nmemory cgroup: %s\ncpu weight cgroup: %s\ngit: %s\n",
		yes(c.PTY), yes(c.UserNS), yes(c.NetNS), yes(c.MountNS), yes(c.PidNS), ll, yes(c.Rlimits), yes(c.Seccomp), yes(c.Openat2), pids, mem, cpu, git)
}

// tryClone starts /bin/true (or the test binary's shell) in new namespaces to see whether the kernel allows it.
func tryClone(flags uintptr, c *Capabilities) bool {
	prog, err := exec.LookPath("true")
	if err != nil {
		prog = "/bin/sh"
	}
	cmd := exec.Command(prog)
	cmd.Env = []string{}
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: flags}
	if flags&syscall.CLONE_NEWUSER != 0 {
		cmd.SysProcAttr.UidMappings = idMap(os.Getuid())
		cmd.SysProcAttr.GidMappings = idMap(os.Getgid())
	}
	if err := cmd.Run(); err != nil {
		c.Errors = append(c.Errors, fmt.Sprintf("clone flags %#x: %v", flags, err))
		return false
	}
	return true
}

// idMap maps one outside id to the same id inside a user namespace.
func idMap(id int) []syscall.SysProcIDMap {
	return []syscall.SysProcIDMap{{ContainerID: id, HostID: id, Size: 1}}
}
