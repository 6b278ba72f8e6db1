package sandbox

import (
	"fmt"
	"os"
	"strings"
)

// Enforcement says what confinement commands actually run under, as decided from the
// config and the host's capabilities; it is shown to the user and recorded in results.
type Enforcement struct {
	// NetworkAllowed mirrors Config.Network.
	NetworkAllowed bool
	// NetworkIsolated is true when commands run in an empty network namespace.
	NetworkIsolated bool
	// TCPBlocked is true when, lacking a network namespace, Landlock denies TCP connect and bind.
	TCPBlocked bool
	// Filesystem is the write-confinement mechanism in force.
	Filesystem FSMode
	// LandlockABI is the Landlock ABI used, 0 when Landlock is not applied.
	LandlockABI int
	// PrivateTmp is true when /tmp is replaced by the private tmp dir.
	PrivateTmp bool
	// PidNS is true when commands run in their own PID namespace with a private /proc:
	// they cannot see exo or other processes, and a timeout can kill every process
	// they started, daemons included.
	PidNS bool
	// HomeHidden is true when the Config.Hide folders (exo's home) are covered in the
	// sandbox's mount namespace, so no path spelling reaches them.
	HomeHidden bool
	// SocketsHidden is true when unix socket files outside the writable dirs are hidden in the
	// mount namespace: /run, the runtime dir, exo's daemon dir, /dev/shm and every
	// socket bound in exo's network namespace at start. One bound later elsewhere, or bound in
	// another network namespace elsewhere, stays reachable: doctor says so.
	SocketsHidden bool
	// Scoped is true when Landlock scopes abstract unix sockets and signals to the sandbox.
	Scoped bool
	// PidsCgroup is the cgroup folder under which each sandbox gets its own pids.max (its
	// Limits.Processes), which binds root; "" when only RLIMIT_NPROC applies.
	PidsCgroup string
	// MemCgroup is the cgroup folder under which each sandbox's memory is capped at
	// Limits.Memory; "" when RLIMIT_AS is lowered to it instead.
	MemCgroup string
	// CPUCgroup is the cgroup folder under which each sandbox gets Limits.CPUWeight; "" when none.
	CPUCgroup string
	// TmpQuota is true when the tmp dir is a tmpfs of Limits.TmpSize in the mount namespace;
	// without it, RLIMIT_FSIZE is lowered to Limits.TmpSize.
	TmpQuota bool
	// NoSetid is true when a seccomp filter refuses to create set-id files (and io_uring),
	// on top of nosuid mounts and no_new_privs.
	NoSetid bool
	// Limits are the resource limits applied.
	Limits Limits
	// Unenforced lists, in words, what was wanted but is not enforced.
	Unenforced []string
}

// Confined reports whether everything asked for is enforced.
func (e Enforcement) Confined() bool { return len(e.Unenforced) == 0 }

// String renders the enforcement in one line for the status bar and doctor.
func (e Enforcement) String() string {
	var parts []string
	switch {
	case e.NetworkAllowed:
		parts = append(parts, "network: allowed")
	case e.NetworkIsolated:
		parts = append(parts, "network: off (namespace)")
	case e.TCPBlocked:
		parts = append(parts, "network: TCP blocked (landlock), other protocols NOT ISOLATED")
	default:
		parts = append(parts, "network: NOT ISOLATED")
	}
	switch e.Filesystem {
	case FSLandlock:
		parts = append(parts, fmt.Sprintf("writes: workspace only (landlock ABI %d)", e.LandlockABI))
	case FSMountNS:
		parts = append(parts, "writes: workspace only (read-only mount namespace)")
	default:
		parts = append(parts, "writes: NOT CONFINED")
	}
	if !e.PidNS {
		parts = append(parts, "processes: NOT ISOLATED")
	}
	if e.HomeHidden {
		parts = append(parts, "exo's home: hidden")
	}
	switch {
	case e.SocketsHidden && (e.Scoped || e.NetworkIsolated):
		parts = append(parts, "unix sockets outside: "+socketsHiddenText+", abstract ones scoped; "+socketsLeftText)
	case e.SocketsHidden:
		parts = append(parts, "unix sockets outside: "+socketsHiddenText+", abstract ones REACHABLE; "+socketsLeftText)
	}
	if e.NoSetid {
		parts = append(parts, "set-id files: refused (seccomp)")
	}
	nproc := "nproc"
	if e.PidsCgroup != "" {
		nproc = "pids (cgroup)"
	}
	mem := "memory (RLIMIT_AS)"
	if e.MemCgroup != "" {
		mem = "memory (cgroup)"
	}
	weight := "cpu weight=none"
	if e.CPUCgroup != "" {
		weight = fmt.Sprintf("cpu weight=%d/100", e.Limits.CPUWeight)
	}
	tmp := "tmp (RLIMIT_FSIZE)"
	if e.TmpQuota {
		tmp = "tmp (tmpfs)"
	}
	parts = append(parts, fmt.Sprintf("limits: as=%s cpu=%s "+nproc+"=%s "+mem+"=%s %s "+tmp+"=%s fsize=%s",
		fmtLimit(e.Limits.AddressSpace, true), fmtLimit(e.Limits.CPUSeconds, false),
		fmtLimit(e.Limits.Processes, false), fmtLimit(e.Limits.Memory, true), weight,
		fmtLimit(e.Limits.TmpSize, true), fmtLimit(e.Limits.FileSize, true)))
	if len(e.Unenforced) > 0 {
		parts = append(parts, "UNCONFINED: "+strings.Join(e.Unenforced, "; "))
	}
	return strings.Join(parts, ", ")
}

// socketsHiddenText and socketsLeftText say what hiding socket files covers and what it cannot:
// sockets are found from /proc/net/unix, which lists only exo's network namespace.
const (
	socketsHiddenText = "files hidden in /run, the runtime dir, /dev/shm and wherever bound at start"
	socketsLeftText   = "one bound elsewhere later or from another network namespace REACHABLE"
)

// fmtLimit renders one limit value, in MiB when it is a size.
func fmtLimit(v uint64, bytes bool) string {
	switch {
	case v == Unlimited:
		return "unlimited"
	case bytes:
		return fmt.Sprintf("%dMiB", v>>20)
	default:
		return fmt.Sprint(v)
	}
}

// plan decides the enforcement for cfg on a host with caps, refusing under the Refuse
// policy when something asked for cannot be enforced.
func plan(cfg Config, caps Capabilities) (Enforcement, error) {
	e := Enforcement{NetworkAllowed: cfg.Network, Limits: cfg.Limits}
	if !cfg.Network {
		e.NetworkIsolated = caps.NetNS
		e.TCPBlocked = !caps.NetNS && caps.LandlockABI >= 4
		switch {
		case e.TCPBlocked:
			e.Unenforced = append(e.Unenforced, "network isolation beyond TCP (no user+network namespaces; landlock blocks TCP only)")
		case !caps.NetNS:
			e.Unenforced = append(e.Unenforced, "network isolation (no user+network namespaces)")
		}
	}
	e.PrivateTmp = caps.MountNS
	e.HomeHidden = caps.MountNS && len(cfg.Hide) > 0
	if len(cfg.Hide) > 0 && !caps.MountNS {
		e.Unenforced = append(e.Unenforced, "hiding exo's home (no mount namespace: "+strings.Join(cfg.Hide, ", ")+" readable)")
	}
	e.PidNS = caps.PidNS
	e.SocketsHidden = caps.MountNS
	e.Scoped = caps.LandlockABI >= landlockScopeABI
	if !caps.MountNS {
		e.Unenforced = append(e.Unenforced, "unix sockets outside the workspace (no mount namespace to hide them)")
	}
	e.PidsCgroup = caps.PidsCgroup
	e.MemCgroup, e.CPUCgroup = caps.MemCgroup, caps.CPUCgroup
	if e.MemCgroup == "" && e.Limits.Memory != Unlimited {
		e.Limits.AddressSpace = min(e.Limits.AddressSpace, e.Limits.Memory)
	}
	e.TmpQuota = caps.MountNS
	if !e.TmpQuota && e.Limits.TmpSize != Unlimited {
		e.Limits.FileSize = min(e.Limits.FileSize, e.Limits.TmpSize)
	}
	if caps.PidsCgroup == "" && os.Geteuid() == 0 {
		e.Unenforced = append(e.Unenforced, "process count for root (no writable pids cgroup; RLIMIT_NPROC does not bind root)")
	}
	e.NoSetid = caps.Seccomp
	if !caps.Seccomp {
		e.Unenforced = append(e.Unenforced, "set-id files (no seccomp filter: a program made in the workspace could be given the set-user-id bit)")
	}
	if !caps.PidNS {
		e.Unenforced = append(e.Unenforced, "process isolation (no PID namespace: other processes, exo's included, are visible in /proc)")
	}
	switch mode := cfg.Filesystem; {
	case mode == FSNone:
		e.Filesystem = FSNone
	case (mode == FSAuto || mode == FSLandlock) && caps.LandlockABI > 0:
		e.Filesystem, e.LandlockABI = FSLandlock, caps.LandlockABI
	case (mode == FSAuto || mode == FSMountNS) && caps.MountNS:
		e.Filesystem = FSMountNS
	default:
		e.Filesystem = FSNone
		e.Unenforced = append(e.Unenforced, fmt.Sprintf("write confinement (%s unavailable)", describeMode(mode)))
	}
	if !caps.Rlimits {
		e.Unenforced = append(e.Unenforced, "resource limits")
	}
	if len(e.Unenforced) > 0 && cfg.Fallback == Refuse {
		return e, fmt.Errorf("%w: %s", ErrIsolationUnavailable, strings.Join(e.Unenforced, "; "))
	}
	return e, nil
}

// describeMode names a requested mode for messages.
func describeMode(m FSMode) string {
	if m == FSAuto {
		return "landlock and mount namespaces"
	}
	return string(m)
}
