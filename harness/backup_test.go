package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestBackupPlaces: a backup is refused inside a session's workspace (named directly, in a
// subfolder, or through a link from outside that points in) and inside exo's home but for its
// backups folder, with nothing written there; outside, in the backups folder and by default it
// is made, 0600.
func TestBackupPlaces(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	h := openTest(t, Options{})
	if _, err := h.NewSession(NewSessionOptions{Name: "w", Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	os.MkdirAll(filepath.Join(h.Home(), "tmp", "x"), 0o700)
	os.Symlink(ws, filepath.Join(outside, "into-ws"))
	os.Symlink(filepath.Join(h.Home(), "tmp"), filepath.Join(outside, "into-home"))
	for _, p := range []string{
		filepath.Join(ws, "b.db"), filepath.Join(ws, "sub", "b.db"), filepath.Join(outside, "into-ws", "b.db"),
		filepath.Join(h.Home(), "b.db"), filepath.Join(h.Home(), "tmp", "x", "b.db"), filepath.Join(outside, "into-home", "b.db"),
	} {
		if _, _, err := h.Backup(context.Background(), p); !errors.Is(err, ErrBackupPlace) {
			t.Errorf("a backup to %s: %v", p, err)
		}
		real, _ := filepath.EvalSymlinks(filepath.Dir(p))
		if _, err := os.Lstat(filepath.Join(real, "b.db")); err == nil {
			t.Errorf("the refused backup to %s was written", p)
		}
	}
	for _, p := range []string{filepath.Join(outside, "b.db"), filepath.Join(h.Home(), BackupsDir, "b.db"), ""} {
		if p != "" {
			os.MkdirAll(filepath.Dir(p), 0o700)
		}
		got, n, err := h.Backup(context.Background(), p)
		if err != nil || n == 0 {
			t.Fatalf("a backup to %q: %v", p, err)
		}
		if fi, err := os.Lstat(got); err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != n {
			t.Fatalf("the backup %s: %v %v", got, fi.Mode(), err)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(h.Home(), BackupsDir)); len(ents) != 2 {
		t.Fatalf("the backups folder holds %d entries", len(ents))
	}
}
