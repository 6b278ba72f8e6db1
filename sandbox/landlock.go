package sandbox

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Why the three Landlock syscalls are made here rather than through
// github.com/landlock-lsm/go-landlock (compared at v0.11.2, which knows ABIs 1 to 11):
//
//   - A writable folder's rule must be added from a descriptor opened without following any
//     link (addRuleNoLinks, openNoLinks), so that a link swapped into the path between exo's
//     checks and the rule cannot grant writes where it points. go-landlock opens every rule's
//     path itself with open(path, O_PATH|O_CLOEXEC), which follows links (addPath in
//     landlock/path_opt_linux.go), and its Rule interface has unexported methods, so a rule
//     from exo's own descriptor cannot be given to it.
//   - It enforces through psx (kernel.org/pub/linux/libs/security/libcap/psx) on every thread of
//     the process; exo's helper restricts the one thread that then execs the command, which is
//     all execve keeps, and needs no new dependency for it.
//
// What go-landlock would add, ABI arithmetic, is fsRights below: every right up to ABI 5
// (ioctl on devices), the TCP rights of ABI 4, the scopes of ABI 6. ABI 7 and later add only
// audit-logging flags and rights exo does not handle (a kernel with them gets ABI 6's ruleset,
// which the kernel accepts: an ABI keeps every earlier one's structures).

// rulesetAttr is struct landlock_ruleset_attr up to the scoped field (ABI 6).
type rulesetAttr struct {
	handledFS  uint64
	handledNet uint64
	scoped     uint64
}

// landlockABI returns the kernel's Landlock ABI version, or 0 when Landlock is unavailable.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// fsRights returns every filesystem right that the ABI knows.
func fsRights(abi int) uint64 {
	r := uint64(1<<13 - 1) // ABI 1: execute .. make_sym.
	if abi >= 2 {
		r |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		r |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		r |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return r
}

// readRights are the rights granted everywhere: read, list and execute.
const readRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR

// deviceFiles are the device nodes commands may open for writing.
var deviceFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/random", "/dev/urandom"}

// applyLandlock restricts the calling thread (which then execs) to write only in the
// writable dirs and a few devices; reads stay allowed everywhere.
func applyLandlock(o helperOpts) error {
	abi := o.landlockABI
	if abi <= 0 {
		return errors.New("landlock requested without an ABI version")
	}
	all := fsRights(abi)
	attr, size := rulesetAttr{}, unsafe.Sizeof(uint64(0))
	if o.fs == FSLandlock {
		attr.handledFS = all
	}
	if o.denyTCP {
		if abi < landlockNetABI {
			return fmt.Errorf("landlock ABI %d cannot block TCP (needs %d)", abi, landlockNetABI)
		}
		attr.handledNet = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		size = unsafe.Offsetof(attr.scoped)
	}
	if abi >= landlockScopeABI && (o.fs == FSLandlock || o.scope) {
		attr.scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
		size = unsafe.Sizeof(attr)
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock create ruleset (ABI %d): %w", abi, errno)
	}
	defer unix.Close(int(fd))
	if o.fs == FSLandlock {
		if err := addFSRules(int(fd), abi, o.writable); err != nil {
			return err
		}
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock restrict self: %w", errno)
	}
	return nil
}

// The first Landlock ABIs that handle TCP, and that scope abstract sockets and signals.
const (
	landlockNetABI   = 4
	landlockScopeABI = 6
)

// addFSRules grants reads everywhere, everything in the writable dirs, and the devices.
func addFSRules(fd, abi int, writable []string) error {
	all := fsRights(abi)
	if err := addRule(fd, "/", readRights); err != nil {
		return err
	}
	for _, w := range writable {
		if err := addRuleNoLinks(fd, w, all); err != nil {
			return err
		}
	}
	return addDeviceRules(fd, abi)
}

// addDeviceRules lets commands use terminals and the usual character devices.
func addDeviceRules(fd, abi int) error {
	dev := uint64(unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE)
	if abi >= 3 {
		dev |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		dev |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	for _, p := range deviceFiles {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if err := addRule(fd, p, dev); err != nil {
			return err
		}
	}
	return addRule(fd, "/dev/pts", dev|unix.LANDLOCK_ACCESS_FS_READ_DIR)
}

// addRule grants rights beneath path.
func addRule(fd int, path string, rights uint64) error {
	pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("landlock rule for %s: %w", path, err)
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights &= fileRights
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(pfd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(fd), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock rule for %s: %w", path, errno)
	}
	return nil
}

// addRuleNoLinks grants rights beneath the folder path, opened without following any link, so
// a link swapped into the path of a writable folder cannot grant writes where it points.
func addRuleNoLinks(fd int, path string, rights uint64) error {
	pfd, err := openNoLinks(path, unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return fmt.Errorf("landlock rule for %s: %w", path, err)
	}
	defer unix.Close(pfd)
	rule := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(pfd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(fd), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock rule for %s: %w", path, errno)
	}
	return nil
}

// fileRights are the rights that apply to a single file rather than a directory.
const fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
	unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
