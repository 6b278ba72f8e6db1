package conventions

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// bigWorkspace fills the user's project with n files.
func bigWorkspace(t *testing.T, u *user, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		write(t, filepath.Join(u.project, fmt.Sprintf("d%02d", i%30), fmt.Sprintf("f%04d.txt", i)), fmt.Sprintf("file %d\n", i))
	}
}

// TestFirstSnapshotShowsProgress: the first snapshot of a 3,000-file workspace reports its
// progress to exo run's stream (stream-json lines counting up to 3000, before the result) and
// to exo exec's stderr. EXO_PROGRESS_AFTER=0 reports every snapshot, however quick this
// machine is (by default only those over half a second).
func TestFirstSnapshotShowsProgress(t *testing.T) {
	u := newUser(t)
	u.env = append(u.env, "EXO_PROGRESS_AFTER=0s")
	bigWorkspace(t, u, 3000)
	u.model("writer", writeScript)
	out, errs, code := u.exo("", "run", "--output-format", "stream-json", "write it")
	if code != 0 {
		t.Fatalf("run: %d %s", code, errs)
	}
	var last map[string]any
	finished := false
	for _, l := range jsonLines(t, out) {
		if l["type"] == "progress" {
			if l["task"] != "snapshot" {
				t.Fatalf("progress line %v", l)
			}
			last = l
			finished = finished || l["finished"] == true
		}
		if l["type"] == "result" && last == nil {
			t.Fatal("no progress line before the result")
		}
	}
	if !finished {
		t.Fatalf("no finished progress line; last %v", last)
	}
	sawAll := strings.Contains(out, `"done":3000,"total":3000`)
	if !sawAll {
		t.Fatalf("progress never reached 3000/3000:\n%s", out)
	}
	// exo exec in a fresh project of the same size: its first snapshot shows on stderr.
	u.project = t.TempDir()
	bigWorkspace(t, u, 3000)
	u.must("new", "--name", "big")
	_, errs, code = u.exo("", "exec", "big", "--", "true")
	if code != 0 || !strings.Contains(errs, "snapshotting the workspace") {
		t.Fatalf("exec: exit %d, stderr %q", code, errs)
	}
}
