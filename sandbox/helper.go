package sandbox

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// helperOpts are the helper's parsed flags.
type helperOpts struct {
	workspace, tmp string
	fs             FSMode
	privateTmp     bool
	tmpSize        uint64
	denyTCP        bool
	newProc        bool
	noSetid        bool
	cgroup         string
	scope          bool
	limits         Limits
	landlockABI    int
	writable       multiFlag
	mask           multiFlag
	hide           multiFlag
	expose         multiFlag
	prog           string
	args           []string
}

// multiFlag collects a repeated string flag.
type multiFlag []string

// String renders the collected values.
func (m *multiFlag) String() string { return fmt.Sprint(*m) }

// Set appends one value.
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// HelperMain is the confinement helper: exo calls it for the hidden HelperCommand
// subcommand with the arguments after it. It sets up mounts, rlimits and Landlock in
// this (fresh) process and then execs the program; it returns only on failure, with
// exit status 126 and a message on stderr. It must never run inside exo's own process.
func HelperMain(args []string) int {
	o, err := parseHelper(args)
	if err == nil {
		err = confineAndExec(o)
	}
	fmt.Fprintf(os.Stderr, "exo sandbox: %v\n", err)
	return 126
}

// parseHelper parses the helper's flags and the program after "--".
func parseHelper(args []string) (helperOpts, error) {
	var o helperOpts
	var fs string
	f := flag.NewFlagSet(HelperCommand, flag.ContinueOnError)
	f.SetOutput(io.Discard)
	f.StringVar(&o.workspace, "workspace", "", "workspace dir")
	f.StringVar(&o.tmp, "tmp", "", "private tmp dir")
	f.StringVar(&fs, "fs", "", "write confinement mode")
	f.BoolVar(&o.privateTmp, "private-tmp", false, "bind the tmp dir on /tmp")
	f.Uint64Var(&o.tmpSize, "tmp-size", 0, "size of the tmpfs on the tmp dir (0: none)")
	f.BoolVar(&o.denyTCP, "deny-tcp", false, "deny TCP connect and bind with landlock")
	f.BoolVar(&o.newProc, "proc", false, "mount a /proc for the new PID namespace")
	f.BoolVar(&o.noSetid, "no-setid", false, "refuse set-id files with a seccomp filter")
	f.StringVar(&o.cgroup, "cgroup", "", "comma-separated cgroups to join first")
	f.BoolVar(&o.scope, "scope", false, "scope abstract unix sockets and signals with landlock")
	f.Uint64Var(&o.limits.AddressSpace, "as", Unlimited, "RLIMIT_AS")
	f.Uint64Var(&o.limits.CPUSeconds, "cpu", Unlimited, "RLIMIT_CPU")
	f.Uint64Var(&o.limits.Processes, "nproc", Unlimited, "RLIMIT_NPROC")
	f.Uint64Var(&o.limits.FileSize, "fsize", Unlimited, "RLIMIT_FSIZE")
	f.IntVar(&o.landlockABI, "landlock-abi", 0, "landlock ABI to use")
	f.Var(&o.writable, "write", "extra writable dir")
	f.Var(&o.mask, "mask", "path to hide (sockets, runtime dirs)")
	f.Var(&o.hide, "hide", "path to hide (exo's home)")
	f.Var(&o.expose, "expose", "system file to show again inside a hidden path")
	if err := f.Parse(args); err != nil {
		return o, fmt.Errorf("parse helper flags: %w", err)
	}
	if f.NArg() == 0 {
		return o, fmt.Errorf("parse helper flags: no program after --")
	}
	o.fs, o.prog, o.args = FSMode(fs), f.Arg(0), f.Args()
	if o.workspace == "" || o.tmp == "" {
		return o, fmt.Errorf("parse helper flags: --workspace and --tmp are required")
	}
	o.writable = append(multiFlag{o.workspace, o.tmp}, o.writable...)
	return o, nil
}

// confineAndExec applies every confinement step in order and execs the program.
func confineAndExec(o helperOpts) error {
	runtime.LockOSThread() // Landlock and no_new_privs bind this thread, which execs.
	if o.cgroup != "" {    // first, while /sys is as exo sees it: every process after this counts.
		if err := joinCgroup(o.cgroup); err != nil {
			return err
		}
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("get working dir: %w", err)
	}
	if o.privateTmp || o.fs == FSMountNS || o.newProc {
		if err := setupMounts(o); err != nil {
			return err
		}
		if err := os.Chdir(cwd); err != nil {
			return fmt.Errorf("re-enter %s after mounts: %w", cwd, err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	// The program (the session's shell, a task) becomes the subreaper of what it starts (kept
	// across exec): a process orphaned by setsid or a double fork stays its descendant instead
	// of going to the host's init, so that, without a cgroup or a PID namespace, exo still finds
	// and ends it with the turn. Best effort: a kernel without it leaves them to init.
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	if err := dropCapabilities(); err != nil {
		return err
	}
	if o.fs == FSLandlock || o.denyTCP || o.scope {
		if err := applyLandlock(o); err != nil {
			return err
		}
	}
	if o.noSetid {
		if err := applySeccomp(); err != nil {
			return err
		}
	}
	return execLimited(o)
}

// execLimited sets the resource limits and execs the program with nothing allocated in
// between, so that the limits bind the program rather than this Go process.
func execLimited(o helperOpts) error {
	path, err := exec.LookPath(o.prog)
	if err != nil {
		return fmt.Errorf("find %s: %w", o.prog, err)
	}
	argv0, err := syscall.BytePtrFromString(path)
	if err != nil {
		return fmt.Errorf("exec %s: %w", path, err)
	}
	argv, err := syscall.SlicePtrFromStrings(o.args)
	if err != nil {
		return fmt.Errorf("exec %s: %w", path, err)
	}
	envv, err := syscall.SlicePtrFromStrings(os.Environ())
	if err != nil {
		return fmt.Errorf("exec %s: %w", path, err)
	}
	if err := applyRlimits(o.limits); err != nil {
		return err
	}
	_, _, errno := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(argv0)),
		uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envv[0])))
	return fmt.Errorf("exec %s: %w", path, errno)
}

// applyRlimits sets each finite limit as both soft and hard limit.
func applyRlimits(l Limits) error {
	set := []struct {
		res  int
		name string
		v    uint64
	}{
		{unix.RLIMIT_AS, "address space", l.AddressSpace},
		{unix.RLIMIT_CPU, "cpu time", l.CPUSeconds},
		{unix.RLIMIT_NPROC, "processes", l.Processes},
		{unix.RLIMIT_FSIZE, "file size", l.FileSize},
	}
	for _, s := range set {
		if s.v == Unlimited {
			continue
		}
		var old unix.Rlimit
		if err := unix.Getrlimit(s.res, &old); err != nil {
			return fmt.Errorf("get %s limit: %w", s.name, err)
		}
		v := min(s.v, old.Max) // a lower hard limit already in force stays.
		rl := unix.Rlimit{Cur: v, Max: v}
		if err := unix.Setrlimit(s.res, &rl); err != nil {
			return fmt.Errorf("set %s limit to %d: %w", s.name, s.v, err)
		}
	}
	return nil
}
