// Package hostiletest holds what attack tests plant in a workspace: a folder swapped for a link
// in a loop, and special files (named pipes, a socket, a device, a link to /dev/zero) where exo
// expects a regular file. It is used only by tests.
package hostiletest

import (
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// SwapLoop exchanges dir/name (a real folder, made if missing: fill it before, since a write
// through dir/name once the loop runs may land in target) with dir/name.alt (a link to
// target) atomically and as fast as it can until the test ends, as an agent racing exo would;
// it returns the number of swaps so far.
func SwapLoop(t testing.TB, dir, name, target string) *atomic.Int64 {
	t.Helper()
	a, b := filepath.Join(dir, name), filepath.Join(dir, name+".alt")
	if err := os.MkdirAll(a, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, b); err != nil {
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	var swaps atomic.Int64
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE) == nil {
				swaps.Add(1)
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	return &swaps
}

// Special is one kind of special file a test puts where exo expects a regular file.
type Special string

// The special files Plant makes.
const (
	Pipe        Special = "a named pipe nobody writes"
	PipeWritten Special = "a named pipe held open by a writer that never writes"
	Socket      Special = "a listening unix socket"
	Device      Special = "a /dev/zero device node"
	ZeroLink    Special = "a symbolic link to /dev/zero"
)

// Kinds lists every Special.
var Kinds = []Special{Pipe, PipeWritten, Socket, Device, ZeroLink}

// Plant makes path a special file of the given kind, removing what was there; the writer and
// the listener it starts end with the test. It reports false when the kind cannot be made here
// (a device node needs root).
func Plant(t testing.TB, path string, kind Special) bool {
	t.Helper()
	os.RemoveAll(path)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	switch kind {
	case Pipe, PipeWritten:
		if err := unix.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
		if kind == PipeWritten {
			w, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { w.Close() })
		}
	case Socket:
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
	case Device:
		return unix.Mknod(path, unix.S_IFCHR|0o644, int(unix.Mkdev(1, 5))) == nil
	case ZeroLink:
		if err := os.Symlink("/dev/zero", path); err != nil {
			t.Fatal(err)
		}
	}
	return true
}

// Within runs f and fails the test when it does not return in a generous minute: exo blocked
// on what was planted.
func Within(t testing.TB, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s blocked for a minute", what)
	}
}

// Keep says whether a race loop goes on after n rounds since start, hits of which reached the
// real file: at least 200 rounds and a second, and on (up to half a minute) until a hit, so a
// loaded machine where the swapper starves the reader still proves something.
func Keep(start time.Time, n, hits int) bool {
	since := time.Since(start)
	return n < 200 || since < time.Second || (hits == 0 && since < 30*time.Second)
}
