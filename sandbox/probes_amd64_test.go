package sandbox

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// setidTriesArch are x86-64's older syscalls that also set a mode.
func setidTriesArch() []setidTry {
	path := func(p string) uintptr { b, _ := unix.BytePtrFromString(p); return uintptr(unsafe.Pointer(b)) }
	return []setidTry{
		{"chmod", func(p string) error {
			unix.Close(must(unix.Open(p, unix.O_CREAT|unix.O_WRONLY, 0o755)))
			_, _, e := unix.Syscall(unix.SYS_CHMOD, path(p), 0o4755, 0)
			return errnoErr(e)
		}},
		{"open O_CREAT", func(p string) error {
			r, _, e := unix.Syscall(unix.SYS_OPEN, path(p), unix.O_CREAT|unix.O_WRONLY, 0o4755)
			if e == 0 {
				unix.Close(int(r))
			}
			return errnoErr(e)
		}},
		{"creat", func(p string) error {
			r, _, e := unix.Syscall(unix.SYS_CREAT, path(p), 0o6755, 0)
			if e == 0 {
				unix.Close(int(r))
			}
			return errnoErr(e)
		}},
		{"mknod", func(p string) error {
			_, _, e := unix.Syscall(unix.SYS_MKNOD, path(p), unix.S_IFREG|0o4755, 0)
			return errnoErr(e)
		}},
	}
}

// must returns fd, or -1 on error.
func must(fd int, err error) int {
	if err != nil {
		return -1
	}
	return fd
}
