package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness/internal/hostiletest"
)

// evilSkill makes a project skill "evil" in a fresh workspace and an outside folder holding a
// secret daemon.log, as the audit's EXO_HOME did; it returns the workspace, the skill folder
// and the outside folder.
func evilSkill(t *testing.T) (ws, skill, outside string) {
	ws, outside = t.TempDir(), t.TempDir()
	skill = filepath.Join(ws, ".exo", "skills", "evil")
	os.MkdirAll(skill, 0o755)
	os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: evil\ndescription: d\n---\nbody"), 0o644)
	os.WriteFile(filepath.Join(outside, "daemon.log"), []byte("OUTSIDE-SECRET"), 0o600)
	os.WriteFile(filepath.Join(outside, "SKILL.md"), []byte("---\nname: outside\ndescription: OUTSIDE-SECRET\n---\nOUTSIDE-SECRET"), 0o600)
	return ws, skill, outside
}

// callSkill calls the skill tool's loader as the executor would, for the workspace.
func callSkill(ws, name, file string) (string, bool) {
	for _, sk := range Discover(Dirs(ws)) {
		if sk.Name == name {
			r := load(sk, file)
			return r.Text, r.IsError
		}
	}
	return "no skill " + name, true
}

// TestSkillRaceSwappedFolder: a background task swaps the skill's sub folder for a link to an
// outside folder in a loop while the skill tool reads sub/daemon.log (the audit read EXO_HOME's
// daemon.log in 2 of 150 calls): no call returns the outside file.
func TestSkillRaceSwappedFolder(t *testing.T) {
	ws, skill, outside := evilSkill(t)
	os.MkdirAll(filepath.Join(skill, "sub"), 0o755)
	os.WriteFile(filepath.Join(skill, "sub", "daemon.log"), []byte("decoy"), 0o644)
	swaps := hostiletest.SwapLoop(t, skill, "sub", outside)
	n, decoys := 0, 0
	for start := time.Now(); hostiletest.Keep(start, n, decoys); n++ {
		text, _ := callSkill(ws, "evil", "sub/daemon.log")
		if strings.Contains(text, "OUTSIDE") {
			t.Fatalf("call %d (after %d swaps) read the outside file: %s", n, swaps.Load(), text)
		}
		if text == "decoy" {
			decoys++
		}
	}
	if decoys == 0 {
		t.Fatalf("no call read the real file in %d calls: the test proves nothing", n)
	}
	t.Logf("%d calls against %d swaps held (%d read the real file)", n, swaps.Load(), decoys)
}

// TestSkillPlantedLinksRefused: links to outside — the skills folder itself, a skill's
// folder, SKILL.md, a file — are never followed in the project's folders.
func TestSkillPlantedLinksRefused(t *testing.T) {
	ws, skill, outside := evilSkill(t)
	os.Symlink(filepath.Join(outside, "daemon.log"), filepath.Join(skill, "log"))
	os.Symlink(outside, filepath.Join(skill, "dir"))
	os.Symlink(outside, filepath.Join(ws, ".exo", "skills", "linked"))
	os.MkdirAll(filepath.Join(ws, ".claude"), 0o755)
	os.Symlink(outside, filepath.Join(ws, ".claude", "skills"))
	for _, f := range []string{"log", "dir/daemon.log", "../linked/daemon.log", "/" + outside + "/daemon.log"} {
		if text, _ := callSkill(ws, "evil", f); strings.Contains(text, "OUTSIDE") {
			t.Errorf("file %s read the outside file: %s", f, text)
		}
	}
	for _, sk := range Discover(Dirs(ws)) {
		if sk.Name != "evil" {
			t.Errorf("a skill from outside was discovered through a link: %+v", sk)
		}
	}
	if text, _ := callSkill(ws, "evil", ""); strings.Contains(text, "OUTSIDE") {
		t.Errorf("the listing named an outside file: %s", text)
	}
}

// TestSkillSpecialFilesRefused: SKILL.md or a skill's file as a named pipe, socket, device or
// link to /dev/zero: discovery and the tool answer at once, with an error, reading nothing.
func TestSkillSpecialFilesRefused(t *testing.T) {
	for _, kind := range hostiletest.Kinds {
		ws, skill, _ := evilSkill(t)
		if !hostiletest.Plant(t, filepath.Join(skill, "f"), kind) {
			continue
		}
		hostiletest.Within(t, "the skill tool on "+string(kind), func() {
			if text, isErr := callSkill(ws, "evil", "f"); !isErr {
				t.Errorf("%s read: %q", kind, text)
			}
		})
		hostiletest.Plant(t, filepath.Join(skill, "SKILL.md"), kind)
		hostiletest.Within(t, "discovering skills with SKILL.md "+string(kind), func() {
			if got := Discover(Dirs(ws)); len(got) != 0 {
				t.Errorf("%s SKILL.md discovered: %+v", kind, got)
			}
		})
	}
}
