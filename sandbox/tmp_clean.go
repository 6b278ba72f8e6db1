package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// openTmpView opens the folder dir as seen from root (a process's /proc/PID/root, or "/"),
// refusing any link on the way: the tmp dir is the agent's.
func openTmpView(root, dir string) (int, error) {
	rfd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(rfd)
	how := unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOFOLLOW,
		Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	fd, err := unix.Openat2(rfd, strings.TrimPrefix(dir, "/"), &how)
	if errors.Is(err, unix.ENOSYS) {
		return openAt(rfd, strings.TrimPrefix(dir, "/"), unix.O_RDONLY|unix.O_DIRECTORY, 0)
	}
	return fd, err
}

// emptyDir removes what the folder dirfd holds, except the names in keep, without following
// links and without crossing into another filesystem: a bind mount below it (the workspace,
// the shell's control folder) is left alone, whatever the agent made of the folder meanwhile.
// busy are paths, relative to the filesystem's root, that are mount points in some view of it
// (a mount namespace exo is not in, where removing one would detach what is mounted there):
// they and the folders leading to them stay.
func emptyDir(dirfd int, busy map[string]bool, keep ...string) error {
	var st unix.Stat_t
	if err := unix.Fstat(dirfd, &st); err != nil {
		return err
	}
	w := emptyWalk{dev: st.Dev, busy: busy}
	return w.empty(dirfd, "", keep, 0)
}

// emptyWalk is emptyDir's walk over entries on the device dev.
type emptyWalk struct {
	dev  uint64
	busy map[string]bool
}

// leads reports whether rel is a busy path or a folder leading to one.
func (w emptyWalk) leads(rel string) bool {
	for b := range w.busy {
		if b == rel || strings.HasPrefix(b, rel+"/") {
			return true
		}
	}
	return false
}

// empty empties the folder dirfd, which is rel below the filesystem's root.
func (w emptyWalk) empty(dirfd int, rel string, keep []string, depth int) error {
	dev := w.dev
	if depth > 256 {
		return errors.New("folders nested too deep")
	}
	names, err := direntNames(dirfd)
	if err != nil {
		return err
	}
	var errs []string
	for _, name := range names {
		sub := rel + "/" + name
		if isKept(name, keep) || w.busy[sub] {
			continue
		}
		var st unix.Stat_t
		if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Dev != dev {
			continue // gone, or a mount of something else
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				continue
			}
			var sst unix.Stat_t
			if unix.Fstat(fd, &sst) == nil && sst.Dev == dev {
				if err := w.empty(fd, sub, nil, depth+1); err != nil {
					errs = append(errs, err.Error())
				}
			}
			unix.Close(fd)
			if w.leads(sub) {
				continue
			}
			if err := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.EBUSY) && !errors.Is(err, unix.ENOTEMPTY) {
				errs = append(errs, fmt.Sprintf("%s: %v", name, err))
			}
			continue
		}
		if err := unix.Unlinkat(dirfd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, fmt.Sprintf("%s: %v", name, err))
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// isKept reports whether name is in keep.
func isKept(name string, keep []string) bool {
	for _, k := range keep {
		if k == name {
			return true
		}
	}
	return false
}

// direntNames lists the entries of the folder dirfd.
func direntNames(dirfd int) ([]string, error) {
	dup, err := unix.Dup(dirfd)
	if err != nil {
		return nil, err
	}
	if _, err := unix.Seek(dup, 0, 0); err != nil {
		unix.Close(dup)
		return nil, err
	}
	var names []string
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.Getdents(dup, buf)
		if err != nil {
			unix.Close(dup)
			return nil, err
		}
		if n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
	unix.Close(dup)
	return names, nil
}

// busyPaths reads the mount table of the process whose root is root ("/proc/PID/root") and
// returns the mount points that lie in the filesystem dev, as paths relative to its root.
func busyPaths(root string, dev uint64) map[string]bool {
	b, err := os.ReadFile(strings.TrimSuffix(root, "/root") + "/mountinfo")
	if err != nil {
		return nil
	}
	type mnt struct{ parent, devno, root, point string }
	byID := map[string]mnt{}
	var all []mnt
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		m := mnt{parent: f[1], devno: f[2], root: unescapeMount(f[3]), point: unescapeMount(f[4])}
		byID[f[0]] = m
		all = append(all, m)
	}
	want := fmt.Sprintf("%d:%d", unix.Major(dev), unix.Minor(dev))
	out := map[string]bool{}
	for _, m := range all {
		p, ok := byID[m.parent]
		if !ok || p.devno != want {
			continue
		}
		rest, ok := strings.CutPrefix(m.point, p.point)
		if !ok || (rest != "" && !strings.HasPrefix(rest, "/") && p.point != "/") {
			continue
		}
		if p.point == "/" {
			rest = m.point
		}
		out[filepath.Clean("/"+strings.TrimPrefix(p.root, "/")+"/"+strings.TrimPrefix(rest, "/"))] = true
	}
	return out
}
