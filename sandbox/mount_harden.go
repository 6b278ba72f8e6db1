package sandbox

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// procKnobs are the parts of /proc through which a process that is root's uid outside its user
// namespace (exo running as root) changes the host without any capability: sysctls, the sysrq
// trigger, interrupt, bus and filesystem settings. The helper makes them read-only, as
// bubblewrap and container engines do.
var procKnobs = []string{"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"}

// hardenProc binds each of procKnobs read-only on itself.
func hardenProc() error {
	for _, p := range procKnobs {
		if _, err := os.Lstat(p); err != nil {
			continue // not on this kernel
		}
		if err := bindReadOnly(p); err != nil {
			return fmt.Errorf("make %s read-only: %w", p, err)
		}
	}
	return nil
}

// hardenDev leaves only the usual character devices usable under /dev: /dev is bound on itself
// (its sub-mounts, /dev/pts and /dev/shm among them, come along), each of deviceFiles is bound
// on itself on top, and the /dev bind is remounted nodev. Any other device node (disks, kvm,
// kmsg, consoles) can then no longer be opened, whatever its owner and mode say.
func hardenDev() error {
	if err := unix.Mount("/dev", "/dev", "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind /dev: %w", err)
	}
	for _, p := range deviceFiles {
		var st unix.Stat_t
		if unix.Stat(p, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
			continue
		}
		if err := unix.Mount(p, p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind %s: %w", p, err)
		}
	}
	return remountWith("/dev", unix.MS_NODEV)
}

// bindReadOnly binds p (a folder or a file) on itself and makes that bind read-only.
func bindReadOnly(p string) error {
	if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	return remountWith(p, unix.MS_RDONLY)
}

// remountWith remounts the bind at p adding flags, repeating the flags its mount already has
// (a user namespace may not clear them).
func remountWith(p string, flags uintptr) error {
	var sfs unix.Statfs_t
	if err := unix.Statfs(p, &sfs); err != nil {
		return fmt.Errorf("statfs %s: %w", p, err)
	}
	if err := unix.Mount("", p, "", unix.MS_REMOUNT|unix.MS_BIND|mountFlags(sfs.Flags)|flags, ""); err != nil {
		return fmt.Errorf("remount %s: %w", p, err)
	}
	return nil
}

// mountFlags turns statfs's ST_* flags into the MS_* flags a remount repeats.
func mountFlags(st int64) uintptr {
	pairs := []struct {
		st int64
		ms uintptr
	}{
		{unix.ST_RDONLY, unix.MS_RDONLY}, {unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV},
		{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME},
		{unix.ST_RELATIME, unix.MS_RELATIME},
	}
	var f uintptr
	for _, p := range pairs {
		if st&p.st != 0 {
			f |= p.ms
		}
	}
	return f
}
