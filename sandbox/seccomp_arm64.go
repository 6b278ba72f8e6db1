package sandbox

import "golang.org/x/sys/unix"

// seccompAuditArch is the architecture the filter accepts; arm64 has no x32-like ABI.
const (
	seccompAuditArch = unix.AUDIT_ARCH_AARCH64
	seccompX32       = false
)

// modeRules are the syscalls that can make a set-id file, with their argument positions.
var modeRules = []modeRule{
	{unix.SYS_FCHMOD, 1, -1}, {unix.SYS_FCHMODAT, 2, -1}, {unix.SYS_FCHMODAT2, 2, -1},
	{unix.SYS_OPENAT, 3, 2}, {unix.SYS_MKNODAT, 2, -1},
}

// errnoRules are refused outright.
var errnoRules = []errnoRule{{unix.SYS_OPENAT2, unix.ENOSYS}, {unix.SYS_IO_URING_SETUP, unix.EPERM}}
