package sandbox

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// HelperCommand is the hidden subcommand under which exo must call HelperMain.
const HelperCommand = "__sandbox-exec"

// capSysAdmin is CAP_SYS_ADMIN, kept across the helper's exec to set up mounts.
const capSysAdmin = 21

// helperCmd builds the command that runs prog with args confined by the helper,
// in the namespaces the enforcement calls for; confinement itself happens in the child.
// With a pids cgroup it makes the sandbox's cgroup, which the helper joins first; call
// removeCgroup(cmd) once the command has exited.
func helperCmd(cfg Config, e Enforcement, dir string, prog string, args ...string) (*exec.Cmd, error) {
	argv := append([]string{}, cfg.Helper[1:]...)
	argv = append(argv, helperArgs(cfg, e)...)
	if bases := e.cgroupBases(); len(bases) > 0 {
		cg, err := newCgroup(bases, e.Limits)
		if err != nil {
			return nil, err
		}
		argv = append(argv, "--cgroup", cg)
	}
	argv = append(argv, "--", prog)
	argv = append(argv, args...)
	cmd := exec.Command(cfg.Helper[0], argv...)
	cmd.Dir = dir
	cmd.Env = cleanEnv(os.Environ(), cfg.TmpDir, cfg.Env)
	cmd.SysProcAttr = nsAttr(e, cfg.NestedUserNS)
	return cmd, nil
}

// helperArgs encodes the enforcement as helper flags.
func helperArgs(cfg Config, e Enforcement) []string {
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	a := []string{
		"--workspace", cfg.Workspace, "--tmp", cfg.TmpDir, "--fs", string(e.Filesystem),
		"--as", u(e.Limits.AddressSpace), "--cpu", u(e.Limits.CPUSeconds),
		"--nproc", u(e.Limits.Processes), "--fsize", u(e.Limits.FileSize),
		"--landlock-abi", strconv.Itoa(max(e.LandlockABI, tcpABI(e), scopeABI(e))),
	}
	if e.PrivateTmp {
		a = append(a, "--private-tmp")
	}
	if e.TmpQuota {
		a = append(a, "--tmp-size", u(e.Limits.TmpSize))
	}
	if e.TCPBlocked {
		a = append(a, "--deny-tcp")
	}
	if e.PidNS {
		a = append(a, "--proc")
	}
	if e.NoSetid {
		a = append(a, "--no-setid")
	}
	if e.Scoped {
		a = append(a, "--scope")
	}
	if e.PrivateTmp { // a mount namespace exists, so masking is possible.
		for _, m := range cfg.MaskPaths {
			a = append(a, "--mask", m)
		}
		for _, m := range socketMasks(append([]string{cfg.Workspace, cfg.TmpDir}, cfg.ExtraWritable...)) {
			a = append(a, "--mask", m)
		}
		for _, h := range cfg.Hide {
			a = append(a, "--hide", h)
		}
		for _, f := range exposedTargets(append(append([]string{}, cfg.MaskPaths...), cfg.Hide...)) {
			a = append(a, "--expose", f)
		}
	}
	for _, w := range cfg.ExtraWritable {
		a = append(a, "--write", w)
	}
	return a
}

// nsAttr returns the clone flags and id mappings for the helper process. With nested, exo
// running as root is seen inside as the unprivileged NestedID (see Config.NestedUserNS), and the
// helper keeps CAP_SYS_ADMIN across its exec to make its mounts, as for any user but root.
func nsAttr(e Enforcement, nested bool) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{}
	var flags uintptr
	if e.NetworkIsolated {
		flags |= syscall.CLONE_NEWNET
	}
	if e.PidNS {
		flags |= syscall.CLONE_NEWPID
	}
	remap := nested && os.Getuid() == 0
	if e.PrivateTmp || e.Filesystem == FSMountNS || e.PidNS {
		flags |= syscall.CLONE_NEWNS
		if os.Getuid() != 0 || remap {
			attr.AmbientCaps = []uintptr{capSysAdmin}
		}
	}
	if flags != 0 {
		flags |= syscall.CLONE_NEWUSER
		attr.UidMappings = idMap(os.Getuid())
		attr.GidMappings = idMap(os.Getgid())
		if remap {
			attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: NestedID, HostID: 0, Size: 1}}
			attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: NestedID, HostID: os.Getgid(), Size: 1}}
			attr.Credential = &syscall.Credential{Uid: NestedID, Gid: NestedID}
		}
	}
	attr.Cloneflags = flags
	return attr
}

// scopeABI is the Landlock ABI needed to scope abstract sockets and signals, or 0.
func scopeABI(e Enforcement) int {
	if e.Scoped {
		return landlockScopeABI
	}
	return 0
}

// tcpABI is the Landlock ABI needed to block TCP, or 0 when TCP is not blocked that way.
func tcpABI(e Enforcement) int {
	if e.TCPBlocked {
		return landlockNetABI
	}
	return 0
}

// cgroupBases maps each controller the sandbox's cgroups use to its base folder.
func (e Enforcement) cgroupBases() map[string]string {
	m := map[string]string{}
	for ctl, base := range map[string]string{ctlPids: e.PidsCgroup, ctlMemory: e.MemCgroup, ctlCPU: e.CPUCgroup} {
		if base != "" {
			m[ctl] = base
		}
	}
	return m
}
