package sandbox

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// probeCommand is the test binary's subcommand that tries attacks from inside a sandbox.
const probeCommand = "__probe"

// probeMain runs one probe: "setid DIR" tries every syscall that could make a set-id file in
// DIR; "connect PATH..." tries to connect to unix sockets (a path starting with @ is abstract).
func probeMain(args []string) int {
	if len(args) == 0 {
		return 2
	}
	switch args[0] {
	case "setid":
		probeSetid(args[1])
	case "fork":
		n, _ := strconv.Atoi(args[1])
		probeFork(n)
	case "listen":
		// Binds each path and prints LISTENING, then holds them until stdin closes.
		var held []net.Listener // kept referenced: a collected listener is closed
		for _, p := range args[1:] {
			ln, err := net.Listen("unix", p)
			held = append(held, ln)
			if err != nil {
				fmt.Printf("listen %s: %v\n", p, err)
				return 1
			}
			os.Chmod(p, 0o777) // a service anyone may connect to, whatever uid the sandbox has
		}
		fmt.Println("LISTENING")
		io.Copy(io.Discard, os.Stdin)
		runtime.KeepAlive(held)
	case "connect":
		for _, p := range args[1:] {
			addr := p
			if addr[0] == '@' {
				addr = "\x00" + addr[1:]
			}
			c, err := net.Dial("unix", addr)
			if err == nil {
				c.Close()
				fmt.Printf("CONNECTED %s\n", p)
			} else {
				fmt.Printf("refused %s (%v)\n", p, err)
			}
		}
	}
	return 0
}

// probeFork starts up to n sleeping children, prints how many started, and kills them.
func probeFork(n int) {
	var started []*exec.Cmd
	for range n {
		c := exec.Command("sleep", "30")
		if c.Start() != nil {
			break
		}
		started = append(started, c)
	}
	fmt.Printf("started=%d\n", len(started))
	for _, c := range started {
		c.Process.Kill()
		c.Wait()
	}
}

// setidTry is one way to make a set-id file.
type setidTry struct {
	name string
	do   func(p string) error
}

// setidTries are the portable ways; setidTriesArch adds the architecture's older syscalls.
func setidTries() []setidTry {
	create := func(p string) {
		if fd, err := unix.Open(p, unix.O_CREAT|unix.O_WRONLY, 0o755); err == nil {
			unix.Close(fd)
		}
	}
	tries := []setidTry{
		{"fchmodat u+s", func(p string) error { create(p); return unix.Fchmodat(unix.AT_FDCWD, p, 0o4755, 0) }},
		{"fchmodat g+s", func(p string) error { create(p); return unix.Fchmodat(unix.AT_FDCWD, p, 0o2755, 0) }},
		{"fchmod", func(p string) error {
			fd, err := unix.Open(p, unix.O_CREAT|unix.O_WRONLY, 0o755)
			if err != nil {
				return err
			}
			defer unix.Close(fd)
			return unix.Fchmod(fd, 0o4755)
		}},
		{"fchmodat2", func(p string) error {
			create(p)
			b, _ := unix.BytePtrFromString(p)
			at := unix.AT_FDCWD
			_, _, e := unix.Syscall6(unix.SYS_FCHMODAT2, uintptr(at), uintptr(unsafe.Pointer(b)), 0o4755, 0, 0, 0)
			return errnoErr(e)
		}},
		{"openat O_CREAT", func(p string) error {
			fd, err := unix.Openat(unix.AT_FDCWD, p, unix.O_CREAT|unix.O_WRONLY|unix.O_EXCL, 0o4755)
			if err == nil {
				unix.Close(fd)
			}
			return err
		}},
		{"openat O_TMPFILE+linkat", func(p string) error {
			fd, err := unix.Open(filepath.Dir(p), unix.O_TMPFILE|unix.O_WRONLY, 0o4755)
			if err != nil {
				return err
			}
			defer unix.Close(fd)
			return unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", fd), unix.AT_FDCWD, p, unix.AT_SYMLINK_FOLLOW)
		}},
		{"openat2", func(p string) error {
			fd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{Flags: unix.O_CREAT | unix.O_WRONLY, Mode: 0o4755})
			if err == nil {
				unix.Close(fd)
			}
			return err
		}},
		{"mknodat", func(p string) error { return unix.Mknodat(unix.AT_FDCWD, p, unix.S_IFREG|0o4755, 0) }},
		{"io_uring_setup", func(p string) error {
			var params [120]byte
			r, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
			if e == 0 {
				unix.Close(int(r))
				create(p)
				return unix.Chmod(p, 0o4755) // io_uring itself is the hole: count it as made.
			}
			return e
		}},
	}
	return append(tries, setidTriesArch()...)
}

// errnoErr turns a raw errno into an error (nil for 0).
func errnoErr(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// probeSetid tries each way in dir and prints whether a set-id file resulted.
func probeSetid(dir string) {
	for i, tr := range setidTries() {
		p := filepath.Join(dir, fmt.Sprintf("setid-%02d", i))
		err := tr.do(p)
		var st unix.Stat_t
		made := unix.Lstat(p, &st) == nil && st.Mode&(unix.S_ISUID|unix.S_ISGID) != 0
		fmt.Printf("%s: made=%v (%v)\n", tr.name, made, err)
	}
}

// copyProbe puts the test binary into dir (the sandbox cannot see the build cache's /tmp).
func copyProbe(t *testing.T, dir string) string {
	t.Helper()
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	p := filepath.Join(dir, "probe.bin")
	dst, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	return p
}
