package crash

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestKillDuringSessionRemove kills the daemon at every step of exo session rm (after the
// session is marked deleted, and after each of its folders is removed), of a session that
// has a fork (which borrows its snapshots) and of the fork. The next command finishes the
// removal: the session is not listed, verify passes, nothing is left, the user's project keeps
// every file. The fork of a removed session keeps its files, runs commands and rewinds to a
// snapshot taken before it was made; a removed fork is out of git worktree list, its working
// copy gone.
func TestKillDuringSessionRemove(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), gitRepo(t, 20)
	mustRun(t, home, "new", "--name", "s", "--workspace", ws)
	mustRun(t, home, "exec", "s", "--", "sh", "-c", "echo one > f.txt")
	k1 := headSeq(t, home, "s")
	mustRun(t, home, "exec", "s", "--", "sh", "-c", "echo two > f.txt")
	mustRun(t, home, "fork", "s", "--name", "sib")
	mustRun(t, home, "exec", "sib", "--", "sh", "-c", "echo three > g.txt")
	fx := saveFixture(t, home, ws)
	for _, c := range []struct{ target, fp string }{
		{"s", "remove.after-mark"}, {"s", "remove.path"},
		{"sib", "remove.after-mark"}, {"sib", "remove.path"}, {"sib", "remove.path#2"}, {"sib", "remove.path#3"},
	} {
		t.Run(c.target+"/"+c.fp, func(t *testing.T) {
			fx.reset(t)
			project := files(t, ws)
			var sib sessionRow
			for _, r := range sessionRows(t, home) {
				if r.Name == "sib" {
					sib = r
				}
			}
			sibFiles := files(t, sib.Workspace)
			killedAt(t, home, ws, c.fp, "session", "rm", "--yes", c.target)
			rows := sessionRows(t, home)
			if len(rows) != 1 || rows[0].Name == c.target {
				t.Fatalf("after a kill at %s the sessions are %+v", c.fp, rows)
			}
			checkRecovered(t, home, ws, c.fp)
			if d := sameFiles(files(t, ws), project); d != "" {
				t.Fatalf("removing %s changed the user's project: %s", c.target, d)
			}
			if c.target == "sib" {
				out, _ := exec.Command("git", "-C", ws, "worktree", "list").CombinedOutput()
				if strings.Contains(string(out), sib.Workspace) {
					t.Fatalf("the removed fork is still in git worktree list:\n%s", out)
				}
				if _, err := os.Stat(sib.Workspace); !os.IsNotExist(err) {
					t.Fatalf("the removed fork's working copy is still there: %v", err)
				}
				mustRun(t, home, "exec", "s", "--", "true")
				return
			}
			if d := sameFiles(files(t, sib.Workspace), sibFiles); d != "" {
				t.Fatalf("the fork lost files: %s", d)
			}
			if got := mustRun(t, home, "exec", "sib", "--", "cat", "g.txt"); !strings.Contains(got, "three") {
				t.Fatalf("the fork: %q", got)
			}
			mustRun(t, home, "rewind", fmt.Sprintf("sib@%d", k1))
			if b, _ := os.ReadFile(sib.Workspace + "/f.txt"); strings.TrimSpace(string(b)) != "one" {
				t.Fatalf("the fork rewound to @%d holds f.txt %q", k1, b)
			}
		})
	}
}
