package config

import (
	"os"
	"path/filepath"
	"testing"

	"exo/harness/internal/hostiletest"
)

// TestProjectFileSpecialOrLinkRefused: a project's .exo/config.toml that is a named pipe, a
// socket, a device or a link (to /dev/zero, or to a file outside) is refused at once with an
// error, never read; the same through ProjectApproval.
func TestProjectFileSpecialOrLinkRefused(t *testing.T) {
	project := t.TempDir()
	path := filepath.Join(project, ProjectFile)
	outside := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(outside, []byte("approval = \"auto\"\n"), 0o644)
	for _, kind := range hostiletest.Kinds {
		if !hostiletest.Plant(t, path, kind) {
			continue
		}
		hostiletest.Within(t, "loading a project config that is "+string(kind), func() {
			if _, err := Load(Options{Project: project}); err == nil {
				t.Errorf("%s loaded", kind)
			}
			if _, err := ProjectApproval(project); err == nil {
				t.Errorf("%s read by ProjectApproval", kind)
			}
		})
	}
	os.Remove(path)
	os.Symlink(outside, path)
	if v, err := ProjectApproval(project); err == nil || v != "" {
		t.Fatalf("a link to outside was followed: %q %v", v, err)
	}
}
