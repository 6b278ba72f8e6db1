package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// FSMode names the mechanism that confines writes to the workspace.
type FSMode string

// Filesystem confinement modes.
const (
	FSAuto     FSMode = ""         // FSAuto picks Landlock, else a mount namespace.
	FSLandlock FSMode = "landlock" // FSLandlock uses the Landlock LSM.
	FSMountNS  FSMode = "mountns"  // FSMountNS remounts everything but the workspace read-only.
	FSNone     FSMode = "none"     // FSNone applies no write confinement.
)

// FallbackPolicy says what to do when the host cannot enforce the requested isolation.
type FallbackPolicy int

// Fallback policies.
const (
	// Refuse fails to start a shell or task when some isolation is unavailable.
	Refuse FallbackPolicy = iota
	// RunUnconfined runs anyway and reports what is not enforced.
	RunUnconfined
)

// ErrIsolationUnavailable is returned when the policy is Refuse and the host lacks a mechanism.
var ErrIsolationUnavailable = errors.New("sandbox isolation unavailable")

// NestedID is the uid and gid that root is seen as inside a sandbox with Config.NestedUserNS.
const NestedID = 1000

// Unlimited disables one resource limit.
const Unlimited = ^uint64(0)

// Limits are resource limits; zero means the default, which MachineLimits derives from this
// machine's cores, memory and disk at run time.
type Limits struct {
	AddressSpace uint64 // AddressSpace is RLIMIT_AS in bytes.
	CPUSeconds   uint64 // CPUSeconds is RLIMIT_CPU in seconds.
	Processes    uint64 // Processes caps the sandbox's processes: pids.max of its cgroup, else RLIMIT_NPROC.
	FileSize     uint64 // FileSize is RLIMIT_FSIZE in bytes.
	// Memory caps the memory of all the sandbox's processes together (its memory cgroup's
	// limit); where no memory controller is writable, RLIMIT_AS is lowered to it instead.
	Memory uint64
	// CPUWeight is the sandbox's share of CPU against other work, on cgroup v2's scale
	// (1..10000, 100 is an ordinary process): cpu.weight, or cpu.shares scaled on cgroup v1.
	CPUWeight uint64
	// TmpSize caps the sandbox's temp space: the size of the tmpfs on its tmp dir in a mount
	// namespace; without one, RLIMIT_FSIZE is lowered to it.
	TmpSize uint64
}

// DefaultLimits are the fixed defaults of the limits that do not depend on the machine;
// MachineLimits fills the others.
var DefaultLimits = Limits{
	AddressSpace: 16 << 30,
	CPUSeconds:   3600,
	FileSize:     8 << 30,
	CPUWeight:    50,
}

// withDefaults fills zero fields from DefaultLimits, then from MachineLimits.
func (l Limits) withDefaults(tmp string) Limits {
	m := MachineLimits(tmp)
	fill := func(v, d, md uint64) uint64 {
		switch {
		case v != 0:
			return v
		case d != 0:
			return d
		}
		return md
	}
	return Limits{
		AddressSpace: fill(l.AddressSpace, DefaultLimits.AddressSpace, m.AddressSpace),
		CPUSeconds:   fill(l.CPUSeconds, DefaultLimits.CPUSeconds, m.CPUSeconds),
		Processes:    fill(l.Processes, DefaultLimits.Processes, m.Processes),
		FileSize:     fill(l.FileSize, DefaultLimits.FileSize, m.FileSize),
		Memory:       fill(l.Memory, DefaultLimits.Memory, m.Memory),
		CPUWeight:    fill(l.CPUWeight, DefaultLimits.CPUWeight, m.CPUWeight),
		TmpSize:      fill(l.TmpSize, DefaultLimits.TmpSize, m.TmpSize),
	}
}

// Config describes one sandbox: where commands run and how they are confined.
type Config struct {
	// Workspace is the directory commands start in and may write to.
	Workspace string
	// TmpDir is the private temporary directory (TMPDIR, and /tmp where a mount namespace is available).
	TmpDir string
	// Network allows network access; by default commands get an empty network namespace.
	Network bool
	// Limits are resource limits; zero fields take DefaultLimits.
	Limits Limits
	// Env holds extra environment variables on top of the allow-list.
	Env map[string]string
	// Filesystem forces a write-confinement mode; FSAuto picks the best available.
	Filesystem FSMode
	// ExtraWritable lists further directories commands may write to.
	ExtraWritable []string
	// MaskPaths are hidden inside the sandbox where a mount namespace is available
	// (sockets such as docker's, which Landlock and network namespaces do not cover);
	// nil means DefaultMaskPaths.
	MaskPaths []string
	// Hide are folders commands must not see at all, whatever path they use: exo's home
	// (its secret key and database). They are covered by an empty read-only tmpfs in the
	// sandbox's mount namespace; the workspace and tmp dir show through when inside one.
	Hide []string
	// NestedUserNS lets programs inside make user namespaces of their own that map their ids, as a
	// nested sandbox does (Codex runs its commands under bubblewrap). The kernel refuses that to
	// root without CAP_SETFCAP, which a sandbox never keeps; so when exo runs as root, the sandbox's
	// user namespace shows it as the unprivileged NestedID instead of root (files stay root's).
	NestedUserNS bool
	// Fallback decides whether missing isolation refuses or runs unconfined.
	Fallback FallbackPolicy
	// Helper is the argv prefix that runs HelperMain; default {os.Executable(), HelperCommand}.
	Helper []string
	// Shell is the shell program; default bash, else sh.
	Shell string
	// InlineLimit is how many bytes of output a Result keeps inline; default 64 KiB.
	InlineLimit int
	// Artifacts receives full outputs that exceed InlineLimit; nil keeps only head and tail.
	Artifacts ArtifactSink
	// Rows and Cols size the PTY; default 50x200.
	Rows, Cols uint16
}

// DefaultMaskPaths are the Unix sockets and runtime dirs hidden from commands: all of /run
// (container engines, the system bus, databases' sockets, the user's runtime dir with
// ssh-agent and the session bus), the system log socket, and the usual engine sockets should
// /var/run not be a link to /run. Sockets bound elsewhere, the user's runtime dir and exo's
// own daemon dir are added at start (see socketMasks).
var DefaultMaskPaths = []string{
	"/run", "/var/run", "/dev/log",
	"/run/docker.sock", "/var/run/docker.sock", "/run/containerd", "/run/podman",
	"/run/dbus", "/var/run/dbus", "/run/user",
}

// normalized returns a copy of c with defaults filled in and paths made absolute.
func (c Config) normalized() (Config, error) {
	if c.Workspace == "" {
		return c, errors.New("sandbox config: workspace is empty")
	}
	ws, err := filepath.Abs(c.Workspace)
	if err != nil {
		return c, fmt.Errorf("sandbox config: workspace %s: %w", c.Workspace, err)
	}
	if ws, err = filepath.EvalSymlinks(ws); err != nil {
		return c, fmt.Errorf("sandbox config: workspace: %w", err)
	}
	c.Workspace = ws
	if c.TmpDir == "" {
		return c, errors.New("sandbox config: tmp dir is empty")
	}
	if err := os.MkdirAll(c.TmpDir, 0o700); err != nil {
		return c, fmt.Errorf("sandbox config: create tmp dir: %w", err)
	}
	if c.TmpDir, err = filepath.EvalSymlinks(c.TmpDir); err != nil {
		return c, fmt.Errorf("sandbox config: tmp dir: %w", err)
	}
	c.Limits = c.Limits.withDefaults(c.TmpDir)
	c.Hide = realPaths(c.Hide)
	c.ExtraWritable = realPaths(c.ExtraWritable) // the helper opens them refusing links
	if c.MaskPaths == nil {
		c.MaskPaths = DefaultMaskPaths
	}
	if c.InlineLimit <= 0 {
		c.InlineLimit = 64 << 10
	}
	if c.Rows == 0 || c.Cols == 0 {
		c.Rows, c.Cols = 50, 200
	}
	if len(c.Helper) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return c, fmt.Errorf("sandbox config: find helper executable: %w", err)
		}
		c.Helper = []string{exe, HelperCommand}
	}
	return c, nil
}

// realPaths returns the paths made absolute with links resolved (missing ones kept clean), so
// that the helper covers the folder itself whatever spelling was given.
func realPaths(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}
