package claude

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/extexec/modeltest"
)

// TestLinksPlantedInTheStateFolderAreNotFollowed: an agent may write in its own state folder, so
// it may replace its temp folder, its config folder or its error log with a link out of it. The
// next claude exo starts for the session must not be given the link's target as its writable
// /tmp (its Bash wrote there before), nor its config, nor have its error output appended there:
// the start is refused, saying which folder, and nothing outside is written.
func TestLinksPlantedInTheStateFolderAreNotFollowed(t *testing.T) {
	for _, planted := range []string{"tmp", "config", "home"} {
		t.Run(planted, func(t *testing.T) {
			outside, err := os.MkdirTemp("/var/tmp", "exo-planted-") // not under /tmp, which the sandbox replaces
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(outside) })
			f := scriptedFixture(t, t.TempDir(), "", nativeScript("write to tmp",
				modeltest.Call{Name: "Bash", Input: map[string]any{"command": "echo escaped > /tmp/escaped.txt; echo escaped > \"$HOME/escaped.txt\"", "description": "write"}}),
				harness.Options{})
			x := f.executor(t, Options{NativeTools: true, AllowUnconfined: true})
			res, err := x.Prompt(context.Background(), f.s.ID, "say hello", "test")
			okResult(t, res, err)
			dirs := x.Session(f.s.ID).Dirs
			x.Close()
			target := filepath.Join(dirs.Root, planted)
			if err := os.RemoveAll(target); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, target); err != nil {
				t.Fatal(err)
			}
			os.Remove(dirs.Stderr)
			if err := os.Symlink(filepath.Join(outside, "stderr.log"), dirs.Stderr); err != nil {
				t.Fatal(err)
			}
			x = f.executor(t, Options{NativeTools: true, AllowUnconfined: true})
			_, err = x.Prompt(context.Background(), f.s.ID, "write to tmp", "test")
			if err == nil || !strings.Contains(err.Error(), target) {
				t.Errorf("the start with %s a link out: %v", planted, err)
			}
			entries, _ := os.ReadDir(outside)
			for _, e := range entries {
				t.Errorf("written outside the state folder through the planted link: %s", e.Name())
			}
		})
	}
}
