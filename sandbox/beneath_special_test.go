package sandbox

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// plantSpecialFiles puts, in ws, what the agent can put where exo expects a file: a named pipe
// nobody writes, a named pipe a process holds open for writing, a listening unix socket and
// (as root) a device node of /dev/zero. It returns their names.
func plantSpecialFiles(t *testing.T, ws string) []string {
	t.Helper()
	names := []string{"pipe", "pipe-written", "sock"}
	for _, p := range names[:2] {
		if err := unix.Mkfifo(filepath.Join(ws, p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A writer that keeps pipe-written open (it never writes): a blocking read would wait on it
	// forever.
	w, err := os.OpenFile(filepath.Join(ws, "pipe-written"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	l, err := net.Listen("unix", filepath.Join(ws, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if unix.Mknod(filepath.Join(ws, "zero"), unix.S_IFCHR|0o644, int(unix.Mkdev(1, 5))) == nil {
		names = append(names, "zero")
	}
	return names
}

// noBlock fails the test when f does not return in a generous time (it blocked).
func noBlock(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(60 * time.Second):
		t.Fatalf("%s blocked", what)
		return nil
	}
}

// TestDirRefusesSpecialFiles: opening or reading a named pipe (written or not), a socket or a
// device through a Dir fails at once with ErrNotRegular instead of blocking or reading forever;
// a folder still opens, and copies skip them.
func TestDirRefusesSpecialFiles(t *testing.T) {
	resolveModes(t, func(t *testing.T) {
		ws := t.TempDir()
		names := plantSpecialFiles(t, ws)
		d, err := OpenDir(ws)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		for _, n := range names {
			ops := map[string]func() error{
				"Open":         func() error { f, err := d.Open(n); closeIf(f); return err },
				"ReadFile":     func() error { _, err := d.ReadFile(n); return err },
				"ReadFileMax":  func() error { _, err := d.ReadFileMax(n, 1<<20); return err },
				"FS.Open":      func() error { f, err := d.FS().Open(n); closeIf(f); return err },
				"ReadBeneath":  func() error { _, err := ReadBeneath(ws, n, 1<<20); return err },
				"OpenFile(rw)": func() error { f, err := d.OpenFile(n, os.O_RDWR, 0); closeIf(f); return err },
			}
			for op, f := range ops {
				if err := noBlock(t, op+" "+n, f); !errors.Is(err, ErrNotRegular) {
					t.Errorf("%s %s: %v, want ErrNotRegular", op, n, err)
				}
			}
		}
		os.Mkdir(filepath.Join(ws, "dir"), 0o755)
		if ents, err := d.ReadDir("dir"); err != nil || len(ents) != 0 {
			t.Errorf("a folder no longer lists: %v %v", ents, err)
		}
		dst := filepath.Join(t.TempDir(), "copy")
		if _, err := within2(t, func() (copyStats, error) { return copyTree(ws, dst, nil) }); err != nil {
			t.Errorf("copy of a workspace with special files: %v", err)
		}
	})
}

// closeIf closes a file opened by mistake (a nil *os.File's Close is harmless).
func closeIf(c io.Closer) {
	if c != nil {
		c.Close()
	}
}

// within2 is noBlock for a function returning a value.
func within2[T any](t *testing.T, f func() (T, error)) (T, error) {
	var v T
	err := noBlock(t, "copy", func() error { var err error; v, err = f(); return err })
	return v, err
}
