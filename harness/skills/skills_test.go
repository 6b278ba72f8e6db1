package skills

import (
	"os"
	"path/filepath"
	"testing"

	"exo/sandbox"
)

func TestDiscoverPrecedenceAndChecks(t *testing.T) {
	user, ws := t.TempDir(), t.TempDir()
	project := filepath.Join(ws, ".exo", "skills")
	write := func(dir, name, text string) {
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(text), 0o644)
	}
	write(user, "pdf", "---\nname: pdf\ndescription: user version\n---\nbody")
	write(project, "pdf", "---\nname: pdf\ndescription: >\n  project version,\n  folded\n---\nbody")
	write(project, "nodesc", "---\nname: nodesc\n---\nbody")
	write(project, "broken", "---\nname: [\n---\n")
	write(project, "noname", "---\ndescription: named after its folder\n---\n")
	os.WriteFile(filepath.Join(project, "stray.md"), []byte("not a skill"), 0o644)
	got := Discover([]sandbox.Folder{sandbox.FolderIn(ws, user), sandbox.FolderIn(ws, project), sandbox.FolderIn(ws, filepath.Join(project, "missing"))})
	if len(got) != 2 || got[0].Name != "noname" || got[1].Name != "pdf" || got[1].Description != "project version, folded" || got[1].Dir != filepath.Join(project, "pdf") {
		t.Fatalf("%+v", got)
	}
}
