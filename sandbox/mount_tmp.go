package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// quotaTmp gives the sandbox's tmp dir a quota: a tmpfs of size bytes on it (and on /tmp with a
// private tmp), so what the agent writes there fills the tmpfs, never the disk of exo's home
// that holds the tmp dir, and goes when the sandbox's mount namespace does. The shell's control
// folder, which exo writes from outside, is bound back into it read-only. It runs before the
// other mounts, whose binds of the tmp dir (on itself, on /tmp) then show the tmpfs.
func quotaTmp(o helperOpts) error {
	ctl, err := openNoLinks(filepath.Join(o.tmp, ctlDirName), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("open the shell's control folder: %w", err)
	}
	if err == nil {
		defer unix.Close(ctl)
	}
	tgt, err := openNoLinks(o.tmp, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil {
		return fmt.Errorf("tmp quota: open %s: %w", o.tmp, err)
	}
	defer unix.Close(tgt)
	opts := "mode=0700,size=" + strconv.FormatUint(o.tmpSize, 10)
	if err := unix.Mount("tmpfs", fdPath(tgt), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("tmp quota: mount a tmpfs of %d bytes on %s: %w", o.tmpSize, o.tmp, err)
	}
	if ctl >= 0 {
		dst := filepath.Join(o.tmp, ctlDirName)
		if err := unix.Mkdir(dst, 0o700); err != nil {
			return fmt.Errorf("tmp quota: %w", err)
		}
		if err := unix.Mount(fdPath(ctl), dst, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("tmp quota: bind the shell's control folder: %w", err)
		}
		if err := unix.Mount("", dst, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("tmp quota: make the shell's control folder read-only: %w", err)
		}
	}
	return nil
}
