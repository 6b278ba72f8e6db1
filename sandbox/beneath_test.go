package sandbox

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// resolveModes runs f with openat2 (when the kernel has it) and with the O_NOFOLLOW walk.
func resolveModes(t *testing.T, f func(t *testing.T)) {
	if HasOpenat2() {
		t.Run("openat2", f)
	}
	t.Run("walk", func(t *testing.T) {
		walkOnly = true
		defer func() { walkOnly = false }()
		f(t)
	})
}

// plantedWorkspace makes a workspace with links planted to an outside folder holding a secret.
func plantedWorkspace(t *testing.T) (d *Dir, ws, outside string) {
	ws, outside = t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("outside secret"), 0o600)
	os.Symlink(outside, filepath.Join(ws, "dirlink"))
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(ws, "filelink"))
	os.Symlink("../"+filepath.Base(outside), filepath.Join(ws, "rellink"))
	os.Mkdir(filepath.Join(ws, "sub"), 0o755)
	d, err := OpenDir(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, ws, outside
}

// TestDirRefusesPlantedLinks: every operation through a planted link fails with ErrUnsafePath
// and nothing outside is read, written or removed.
func TestDirRefusesPlantedLinks(t *testing.T) {
	resolveModes(t, func(t *testing.T) {
		d, ws, outside := plantedWorkspace(t)
		for _, p := range []string{"dirlink/secret", "filelink", "rellink/secret", "../" + filepath.Base(outside) + "/secret", "sub/../../x", "/etc/passwd"} {
			if _, err := d.ReadFile(p); !errors.Is(err, ErrUnsafePath) {
				t.Errorf("read %s: %v, want ErrUnsafePath", p, err)
			}
		}
		for _, p := range []string{"dirlink/new", "rellink/new", "dirlink/a/b/c", "filelink"} {
			if err := d.WriteFile(p, []byte("x"), 0o644); !errors.Is(err, ErrUnsafePath) {
				t.Errorf("write %s: %v, want ErrUnsafePath", p, err)
			}
			if err := d.MkdirAll(p+"/dir", 0o755); !errors.Is(err, ErrUnsafePath) {
				t.Errorf("mkdir %s/dir: %v, want ErrUnsafePath", p, err)
			}
		}
		if _, err := d.ReadDir("dirlink"); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("list dirlink: %v", err)
		}
		if fi, err := d.Lstat("dirlink"); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("lstat dirlink: %v %v", fi, err)
		}
		if err := d.RemoveAll("dirlink"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(filepath.Join(ws, "dirlink")); !os.IsNotExist(err) {
			t.Errorf("the link itself was not removed: %v", err)
		}
		if got, _ := os.ReadFile(filepath.Join(outside, "secret")); string(got) != "outside secret" {
			t.Fatalf("outside file changed: %q", got)
		}
		if ents, _ := os.ReadDir(outside); len(ents) != 1 {
			t.Fatalf("outside folder has %d entries", len(ents))
		}
	})
}

// TestDirWriteReplacesHardLink: writing a file that is a hard link to another file replaces it
// instead of writing through to the other name.
func TestDirWriteReplacesHardLink(t *testing.T) {
	d, ws, _ := plantedWorkspace(t)
	other := filepath.Join(t.TempDir(), "other")
	os.WriteFile(other, []byte("keep"), 0o755)
	if err := os.Link(other, filepath.Join(ws, "hard")); err != nil {
		t.Skipf("hard link across temp dirs: %v", err)
	}
	if err := d.WriteFile("hard", []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(other); string(got) != "keep" {
		t.Fatalf("wrote through the hard link: %q", got)
	}
	if fi, _ := os.Stat(filepath.Join(ws, "hard")); fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v, want the old file's 0755", fi.Mode().Perm())
	}
}

// swapLoop exchanges ws/name (a real folder) with ws/name.alt (a link to outside) atomically
// and as fast as it can until the test ends, as an agent racing exo would; it returns the
// number of swaps so far.
func swapLoop(t *testing.T, ws, name, outside string) *atomic.Int64 {
	t.Helper()
	a, b := filepath.Join(ws, name), filepath.Join(ws, name+".alt")
	if err := os.MkdirAll(a, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, b); err != nil {
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

// TestDirRaceSwappedFolder swaps a folder for a link to outside in a loop while exo writes,
// reads, creates folders and removes beneath it: nothing outside is ever touched or read.
func TestDirRaceSwappedFolder(t *testing.T) {
	resolveModes(t, func(t *testing.T) {
		d, ws, outside := plantedWorkspace(t)
		os.WriteFile(filepath.Join(outside, "f"), []byte("outside secret"), 0o600)
		swaps := swapLoop(t, ws, "d", outside)
		deadline := time.Now().Add(400 * time.Millisecond)
		n := 0
		for ; time.Now().Before(deadline) || n < 200; n++ {
			d.WriteFile("d/f", []byte("inside"), 0o644)
			d.MkdirAll("d/newdir/x", 0o755)
			d.RemoveAll("d/newdir")
			if b, err := d.ReadFile("d/f"); err == nil && bytes.Contains(b, []byte("outside")) {
				t.Fatalf("read the outside file through the swapped folder")
			}
		}
		if got, _ := os.ReadFile(filepath.Join(outside, "f")); string(got) != "outside secret" {
			t.Fatalf("after %d swaps and %d rounds the outside file is %q", swaps.Load(), n, got)
		}
		if ents, _ := os.ReadDir(outside); len(ents) != 2 {
			t.Fatalf("after %d swaps the outside folder has %d entries", swaps.Load(), len(ents))
		}
		t.Logf("%d rounds against %d swaps held", n, swaps.Load())
	})
}
