package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// setupMounts runs in the helper inside fresh user and mount namespaces: it mounts a
// /proc that shows only the new PID namespace, binds the private tmp dir on /tmp, hides
// exo's home and the masked paths (sockets, runtime dirs) under empty read-only tmpfs or
// /dev/null, binds each writable dir back on its own path (nosuid, nodev), and in FSMountNS
// mode makes every other mount read-only. Mounts go from the shallowest path to the deepest,
// so a workspace inside a hidden folder shows again and a hidden folder inside the workspace
// stays hidden. Every path is opened without following links: the private tmp dir and the
// workspace are the agent's, and a link planted there must not lead the helper, which runs
// with privilege over the namespace, to create or cover anything elsewhere.
func setupMounts(o helperOpts) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if o.newProc {
		if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("mount /proc for the PID namespace: %w", err)
		}
	}
	if o.tmpSize > 0 { // first: the binds of the tmp dir below then show the tmpfs
		if err := quotaTmp(o); err != nil {
			return err
		}
	}
	ops, err := mountPlan(o)
	if err != nil {
		return err
	}
	defer closeOps(ops)
	var covers []string
	for _, op := range ops {
		done, err := op.apply()
		if err != nil {
			return err
		}
		if done && op.kind == opCover {
			covers = append(covers, op.target)
		}
	}
	for _, c := range covers {
		if err := unix.Mount("", c, "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("make the cover of %s read-only: %w", c, err)
		}
	}
	if err := hardenProc(); err != nil {
		return err
	}
	if err := hardenDev(); err != nil {
		return err
	}
	if o.fs != FSMountNS {
		return nil
	}
	return remountReadOnly(o.writable)
}

// mountEntry is one line of /proc/self/mountinfo.
type mountEntry struct {
	point, fstype string
	opts, super   []string
}

// remountReadOnly remounts every mount read-only except those under keep, /tmp, /dev and /proc
// (whose host-wide knobs hardenProc made read-only), keeping the per-mount flags that a user
// namespace may not change. /sys goes read-only with the rest: its files are root's, and the
// sandbox's user is root outside its namespace when exo runs as root.
func remountReadOnly(keep []string) error {
	mounts, err := readMountInfo()
	if err != nil {
		return err
	}
	keep = append(keep, "/tmp", "/dev", "/proc")
	for _, m := range mounts {
		if underAny(m.point, keep) || hasOpt(m.opts, "ro") {
			continue
		}
		flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY)
		flags |= lockedFlags(m.opts)
		if err := unix.Mount("", m.point, "", flags, ""); err != nil {
			return fmt.Errorf("remount %s (%s) read-only: %w", m.point, m.fstype, err)
		}
	}
	return nil
}

// readMountInfo parses /proc/self/mountinfo.
func readMountInfo() ([]mountEntry, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("read mountinfo: %w", err)
	}
	defer f.Close()
	var out []mountEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := indexOf(fields, "-")
		if len(fields) < 6 || sep < 0 || sep+1 >= len(fields) {
			continue
		}
		e := mountEntry{point: unescapeMount(fields[4]), fstype: fields[sep+1], opts: strings.Split(fields[5], ",")}
		if sep+3 < len(fields) {
			e.super = strings.Split(fields[sep+3], ",")
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read mountinfo: %w", err)
	}
	return out, nil
}

// lockedFlags maps mount options to the flags a remount must repeat.
func lockedFlags(opts []string) uintptr {
	names := map[string]uintptr{
		"nosuid": unix.MS_NOSUID, "nodev": unix.MS_NODEV, "noexec": unix.MS_NOEXEC,
		"noatime": unix.MS_NOATIME, "nodiratime": unix.MS_NODIRATIME, "relatime": unix.MS_RELATIME,
		"strictatime": unix.MS_STRICTATIME,
	}
	var f uintptr
	for _, o := range opts {
		f |= names[o]
	}
	return f
}

// underAny reports whether p equals or lies beneath one of dirs.
func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		d = filepath.Clean(d)
		if p == d || strings.HasPrefix(p, d+"/") || d == "/" {
			return true
		}
	}
	return false
}

// hasOpt reports whether opts contains o.
func hasOpt(opts []string, o string) bool { return indexOf(opts, o) >= 0 }

// indexOf returns the index of s in list, or -1.
func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// unescapeMount decodes the octal escapes (\040 and friends) of mountinfo paths.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
