package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// opKind says what one helper mount does.
type opKind int

// Helper mount kinds, in the order they apply at equal depth.
const (
	opTmp    opKind = iota // opTmp binds the private tmp dir on /tmp.
	opCover                // opCover hides a path under an empty tmpfs or /dev/null.
	opBind                 // opBind binds a writable dir back on its own path.
	opExpose               // opExpose binds a system file back, read-only, inside a cover.
)

// mountOp is one mount the helper makes.
type mountOp struct {
	kind   opKind
	target string
	src    int // O_PATH descriptor of the bind source, -1 for covers
}

// mountPlan lists the helper's mounts from the shallowest target to the deepest; bind
// sources are opened now, without following links, before anything is covered.
func mountPlan(o helperOpts) ([]mountOp, error) {
	var ops []mountOp
	if o.privateTmp {
		fd, err := openNoLinks(o.tmp, unix.O_PATH|unix.O_DIRECTORY)
		if err != nil {
			return nil, fmt.Errorf("open tmp dir %s: %w", o.tmp, err)
		}
		ops = append(ops, mountOp{kind: opTmp, target: "/tmp", src: fd})
	}
	for _, c := range append(append([]string{}, o.hide...), o.mask...) {
		c = filepath.Clean(c)
		if !slices.Contains(o.writable, c) {
			ops = append(ops, mountOp{kind: opCover, target: c, src: -1})
		}
	}
	for _, w := range o.writable {
		fd, err := openNoLinks(w, unix.O_PATH|unix.O_DIRECTORY)
		if err != nil {
			closeOps(ops)
			return nil, fmt.Errorf("open writable dir %s: %w", w, err)
		}
		ops = append(ops, mountOp{kind: opBind, target: filepath.Clean(w), src: fd})
	}
	for _, f := range o.expose {
		fd, err := unix.Open(f, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // gone meanwhile: nothing to show.
		}
		ops = append(ops, mountOp{kind: opExpose, target: filepath.Clean(f), src: fd})
	}
	slices.SortStableFunc(ops, func(a, b mountOp) int {
		if d := depth(a.target) - depth(b.target); d != 0 {
			return d
		}
		return int(a.kind) - int(b.kind)
	})
	return ops, nil
}

// depth counts a clean absolute path's components.
func depth(p string) int { return strings.Count(strings.TrimSuffix(p, "/"), "/") }

// closeOps closes the bind sources.
func closeOps(ops []mountOp) {
	for _, op := range ops {
		if op.src >= 0 {
			unix.Close(op.src)
		}
	}
}

// apply makes the mount; done is false for a cover whose target does not exist.
func (op mountOp) apply() (done bool, err error) {
	switch op.kind {
	case opTmp:
		return true, bindNoSuid(op.src, op.target)
	case opCover:
		return cover(op.target)
	case opExpose:
		return true, bindFileReadOnly(op.src, op.target)
	default:
		return true, bindNoSuid(op.src, op.target)
	}
}

// bindFileReadOnly binds the file src on target, read-only; target's folders and an empty
// file to mount on are created inside the cover that hides the original.
func bindFileReadOnly(src int, target string) error {
	dir, err := mkdirNoLinks(filepath.Dir(target))
	if err != nil {
		return fmt.Errorf("expose %s: %w", target, err)
	}
	defer unix.Close(dir)
	fd, err := unix.Openat(dir, filepath.Base(target), unix.O_CREAT|unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return fmt.Errorf("expose %s: %w", target, err)
	}
	defer unix.Close(fd)
	if err := unix.Mount(fdPath(src), fdPath(fd), "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("expose %s: %w", target, err)
	}
	if err := unix.Mount("", target, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return fmt.Errorf("expose %s read-only: %w", target, err)
	}
	return nil
}

// cover hides target: an empty tmpfs over a folder (read-only once the binds below it are
// made), /dev/null over anything else (a socket cannot be connected to through it).
func cover(target string) (bool, error) {
	var st unix.Stat_t
	if unix.Stat(target, &st) != nil {
		return false, nil
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		if err := unix.Mount("/dev/null", target, "", unix.MS_BIND, ""); err != nil {
			return false, fmt.Errorf("mask %s: %w", target, err)
		}
		return false, nil
	}
	if err := unix.Mount("tmpfs", target, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0755,size=64k,nr_inodes=256"); err != nil {
		return false, fmt.Errorf("hide %s: %w", target, err)
	}
	return true, nil
}

// bindNoSuid binds the folder src on target (created as needed, without following links),
// nosuid and nodev: a set-id program made in the workspace never runs with privilege here.
// It uses a detached mount tree (open_tree, mount_setattr, move_mount) so the flags are set
// before the mount is visible, else a bind and a remount.
func bindNoSuid(src int, target string) error {
	tgt, err := mkdirNoLinks(target)
	if err != nil {
		return fmt.Errorf("mount point %s: %w", target, err)
	}
	defer unix.Close(tgt)
	tree, err := unix.OpenTree(src, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
	if err == nil {
		defer unix.Close(tree)
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV}
		if err = unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err == nil {
			err = unix.MoveMount(tree, "", tgt, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
		}
		if err == nil || !errors.Is(err, unix.ENOSYS) {
			return wrapBind(target, err)
		}
	}
	if err := unix.Mount(fdPath(src), fdPath(tgt), "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return wrapBind(target, err)
	}
	var sfs unix.Statfs_t
	var locked uintptr
	if unix.Fstatfs(src, &sfs) == nil {
		locked = uintptr(sfs.Flags) & (unix.MS_RDONLY | unix.MS_NOEXEC | unix.MS_NOATIME | unix.MS_NODIRATIME | unix.MS_RELATIME)
	}
	flags := unix.MS_REMOUNT | unix.MS_BIND | unix.MS_NOSUID | unix.MS_NODEV | locked
	return wrapBind(target, unix.Mount("", target, "", flags, ""))
}

// wrapBind names the bind in an error.
func wrapBind(target string, err error) error {
	if err != nil {
		return fmt.Errorf("bind %s: %w", target, err)
	}
	return nil
}

// fdPath is the /proc path of one of this process's descriptors.
func fdPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// openNoLinks opens the absolute path abs refusing any link on the way.
func openNoLinks(abs string, flags int) (int, error) {
	root, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(root)
	return openAt(root, strings.TrimPrefix(filepath.Clean(abs), "/"), flags, 0)
}

// mkdirNoLinks creates the absolute folder abs as needed, refusing any link on the way, and
// returns an O_PATH descriptor of it.
func mkdirNoLinks(abs string) (int, error) {
	d, err := OpenDir("/")
	if err != nil {
		return -1, err
	}
	defer d.Close()
	return d.mkdirAll(strings.TrimPrefix(filepath.Clean(abs), "/"), 0o755)
}
