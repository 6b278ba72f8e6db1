package sandbox

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// readingTTY reports whether one of pids is blocked reading the terminal tty (a
// password prompt or an interactive program), from /proc/PID/syscall and its fd link.
func readingTTY(pids []int, tty string) bool {
	for _, pid := range pids {
		if waitsOn(pid, tty) {
			return true
		}
	}
	return false
}

// waitsOn reports whether pid is inside read(2) on a descriptor open on tty.
func waitsOn(pid int, tty string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/syscall")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 || f[0] != strconv.Itoa(unix.SYS_READ) {
		return false
	}
	fd, err := strconv.ParseInt(strings.TrimPrefix(f[1], "0x"), 16, 32)
	if err != nil {
		return false
	}
	link, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.FormatInt(fd, 10))
	return err == nil && (link == tty || link == "/dev/tty")
}
