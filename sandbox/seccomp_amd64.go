package sandbox

import "golang.org/x/sys/unix"

// seccompAuditArch is the architecture the filter accepts; seccompX32 says x32 syscall
// numbers (with bit 30 set) exist and must be refused.
const (
	seccompAuditArch = unix.AUDIT_ARCH_X86_64
	seccompX32       = true
)

// modeRules are the syscalls that can make a set-id file, with their argument positions.
var modeRules = []modeRule{
	{unix.SYS_CHMOD, 1, -1}, {unix.SYS_FCHMOD, 1, -1}, {unix.SYS_FCHMODAT, 2, -1}, {unix.SYS_FCHMODAT2, 2, -1},
	{unix.SYS_OPEN, 2, 1}, {unix.SYS_OPENAT, 3, 2}, {unix.SYS_CREAT, 1, -1},
	{unix.SYS_MKNOD, 1, -1}, {unix.SYS_MKNODAT, 2, -1},
}

// errnoRules are refused outright.
var errnoRules = []errnoRule{{unix.SYS_OPENAT2, unix.ENOSYS}, {unix.SYS_IO_URING_SETUP, unix.EPERM}}
