package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestResolveInWorkspace(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.MkdirAll(filepath.Join(ws, "src"), 0o755)
	os.WriteFile(filepath.Join(root, "secret"), []byte("x"), 0o600)
	os.Symlink("../secret", filepath.Join(ws, "out-link"))
	os.Symlink(root, filepath.Join(ws, "out-dir"))
	os.Symlink("src", filepath.Join(ws, "in-dir"))
	os.Symlink("../../elsewhere/new.txt", filepath.Join(ws, "src", "dangling-out"))
	os.Symlink("future.txt", filepath.Join(ws, "dangling-in"))
	ok := map[string]string{
		"src/a.go":       filepath.Join(ws, "src/a.go"),
		"in-dir/b.go":    filepath.Join(ws, "src/b.go"),
		"new/dir/c.txt":  filepath.Join(ws, "new/dir/c.txt"),
		"dangling-in":    filepath.Join(ws, "future.txt"),
		ws + "/src/../x": filepath.Join(ws, "x"),
		".":              ws,
	}
	for in, want := range ok {
		got, err := ResolveInWorkspace(ws, in)
		if err != nil || got != want {
			t.Errorf("%s: got %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"../secret", "src/../../secret", "out-link", "out-dir/secret", "out-dir/new.txt", "src/dangling-out", "/etc/passwd"} {
		if got, err := ResolveInWorkspace(ws, in); !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("%s: got %q, %v; want refusal", in, got, err)
		}
	}
}
