package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// sharedDirs are folders any process may write, whatever its network namespace, that hold
// nothing a command needs to read: a socket bound there by a process in another network
// namespace is missing from exo's /proc/net/unix, so they are hidden whole. (/var/tmp is
// writable by all too but holds what users keep across reboots, so it stays readable.)
var sharedDirs = []string{"/dev/shm"}

// socketMasks lists what else must be hidden so that no unix socket outside the sandbox's
// writable dirs can be connected to: the user's runtime dir and exo's daemon dirs
// ($XDG_RUNTIME_DIR/exo, $TMPDIR/exo-UID), a temporary dir other than /tmp, /dev/shm, and every socket file bound at this moment in exo's network namespace (listed
// by /proc/net/unix) outside the writable dirs. A socket bound elsewhere later, or in another
// network namespace, is not covered; Landlock scoping covers abstract sockets, the network
// namespace too.
func socketMasks(writable []string) []string {
	var out []string
	add := func(p string) {
		if p != "" && filepath.IsAbs(p) && !underAny(filepath.Clean(p), writable) {
			out = append(out, filepath.Clean(p))
		}
	}
	for _, d := range sharedDirs {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			add(d)
		}
	}
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		add(rt)
	}
	tmp := os.TempDir()
	add(filepath.Join(tmp, fmt.Sprintf("exo-%d", os.Getuid())))
	if filepath.Clean(tmp) != "/tmp" {
		add(tmp)
	}
	for _, s := range boundSockets() {
		add(s)
	}
	return out
}

// boundSockets lists the paths of the unix sockets bound in exo's network namespace.
func boundSockets() []string {
	f, err := os.Open("/proc/net/unix")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 8 && strings.HasPrefix(fields[7], "/") {
			out = append(out, strings.Join(fields[7:], " "))
		}
	}
	return out
}

// exposedLinks are system files that are often links into /run (the resolver's config under
// systemd-resolved): their targets are shown again, read-only, inside the cover of /run.
var exposedLinks = []string{"/etc/resolv.conf"}

// exposedTargets returns the targets of exposedLinks that lie under one of covers.
func exposedTargets(covers []string) []string {
	var out []string
	for _, l := range exposedLinks {
		real, err := filepath.EvalSymlinks(l)
		if err != nil || real == l {
			continue
		}
		for _, c := range covers {
			if r, err := filepath.EvalSymlinks(c); err == nil && underAny(real, []string{r}) {
				out = append(out, real)
				break
			}
		}
	}
	return out
}
