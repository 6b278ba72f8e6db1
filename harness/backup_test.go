package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/store"
)

// TestBackupPlaces: a backup is refused inside a session's workspace (named directly, in a
// subfolder, or through a link from outside that points in), inside exo's home but for its
// backups folder, and anywhere else outside the home (every session's sandboxed commands read
// there), saying so, with nothing written there; in the backups folder and by default it is
// made, 0600.
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
		filepath.Join(outside, "b.db"),
	} {
		if _, _, err := h.Backup(context.Background(), p); !errors.Is(err, ErrBackupPlace) {
			t.Errorf("a backup to %s: %v", p, err)
		}
		real, _ := filepath.EvalSymlinks(filepath.Dir(p))
		if _, err := os.Lstat(filepath.Join(real, "b.db")); err == nil {
			t.Errorf("the refused backup to %s was written", p)
		}
	}
	_, _, err := h.Backup(context.Background(), filepath.Join(outside, "b.db"))
	if msg := err.Error(); !strings.Contains(msg, "sandboxed commands could read") || !strings.Contains(msg, filepath.Join(h.Home(), BackupsDir)) {
		t.Errorf("the refusal of a place outside the home does not say why and where instead: %v", err)
	}
	_, _, err = h.Backup(context.Background(), filepath.Join(ws, "b.db"))
	if !strings.Contains(err.Error(), "workspace of session w") {
		t.Errorf("the refusal of a workspace does not name it: %v", err)
	}
	for _, p := range []string{filepath.Join(h.Home(), BackupsDir, "b.db"), ""} {
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
	if ents, _ := os.ReadDir(outside); len(ents) != 2 {
		t.Fatalf("the refusals wrote beside the links: %v", ents)
	}
}

// TestBackupRefusesLinks: a symbolic link planted at any component of the path to the backups
// folder (each pointing where the path would lead anyway, so only the link itself is wrong),
// and one a session's agent planted in its workspace pointing at the backups folder, are
// refused, naming the link; nothing is written anywhere.
func TestBackupRefusesLinks(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "a", "b", "home")
	h, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	backups := filepath.Join(home, BackupsDir)
	os.MkdirAll(backups, 0o700)
	ws := t.TempDir()
	if _, err := h.NewSession(NewSessionOptions{Name: "w", Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(root, backups)
	parts := strings.Split(rel, string(filepath.Separator))
	for i := range parts {
		real := filepath.Join(append([]string{root}, parts[:i+1]...)...)
		link := real + "-link"
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(append([]string{link}, append(parts[i+1:], "b.db")...)...)
		_, _, err := h.Backup(context.Background(), p)
		if !errors.Is(err, ErrBackupPlace) || !errors.Is(err, store.ErrLinkInPath) || !strings.Contains(err.Error(), link) {
			t.Errorf("a backup through the link %s: %v", link, err)
		}
	}
	os.Symlink(backups, filepath.Join(ws, "backups"))
	if _, _, err := h.Backup(context.Background(), filepath.Join(ws, "backups", "b.db")); !errors.Is(err, store.ErrLinkInPath) {
		t.Errorf("a backup through a link the agent planted: %v", err)
	}
	if ents, _ := os.ReadDir(backups); len(ents) != 0 {
		t.Fatalf("a refused backup was written: %v", ents)
	}
}
