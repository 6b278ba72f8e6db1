package crash

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness/api"
)

// TestKillDuringAttemptKeep kills the daemon at every step of exo attempts keep --archive (once
// both sessions' files are snapshotted, once the original's branch continues the attempt's,
// after the attempt's snapshots are borrowed, before and after the files are restored, between
// the archives). After the next command the original is either kept (its files the attempt's,
// the scoreboard says so) or untouched (its files and history as before); asking again for the
// keep finishes it, archives the others, and leaves nothing behind.
func TestKillDuringAttemptKeep(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), gitRepo(t, 20)
	scripts := t.TempDir()
	for name, script := range map[string]string{
		"good":   "turns:\n  - tool_calls:\n      - name: write_file\n        args: {path: \"answer.txt\", content: \"42\\n\"}\n      - name: write_file\n        args: {path: \"src/d0/f000.txt\", content: \"changed\\n\"}\n  - text: \"42\"\n",
		"wrong":  "turns:\n  - tool_calls:\n      - name: write_file\n        args: {path: \"answer.txt\", content: \"41\\n\"}\n  - text: \"41\"\n",
		"broken": "turns:\n  - fail: server\n",
	} {
		p := filepath.Join(scripts, name+".yaml")
		if err := os.WriteFile(p, []byte("name: "+name+"\n"+script), 0o644); err != nil {
			t.Fatal(err)
		}
		mustRun(t, home, "model", "register", name, "--provider", "scripted", "--base-url", p)
	}
	mustRun(t, home, "new", "--name", "s", "--workspace", ws)
	mustRun(t, home, "exec", "s", "--", "sh", "-c", "echo unknown > answer.txt")
	out, errs, code := exoEnv(t, home, ws, nil, "attempts", "s", "--model", "good,wrong,broken", "--check", "grep -qx 42 answer.txt", "--yes", "--json", "answer")
	if code != 0 {
		t.Fatalf("exo attempts: exit %d\n%s\n%s", code, out, errs)
	}
	var set api.AttemptSet
	if err := json.Unmarshal([]byte(out), &set); err != nil || len(set.Rows) != 3 {
		t.Fatalf("exo attempts --json: %v\n%s", err, out)
	}
	good := set.Rows[0]
	goodWS := ""
	for _, r := range sessionRows(t, home) {
		if r.Name == good.Name {
			goodWS = r.Workspace
		}
	}
	before, kept, head := files(t, ws), files(t, goodWS), headSeq(t, home, "s")
	if kept["answer.txt"] != "42\n" || before["answer.txt"] != "unknown\n" {
		t.Fatalf("the fixture: the attempt holds %q, the original %q", kept["answer.txt"], before["answer.txt"])
	}
	fx := saveFixture(t, home, ws, goodWS)
	for _, fp := range []string{"keep.after-snapshots", "keep.after-adopt", "keep.after-borrow", "restore.before",
		"restore.after-files", "after.workspace.restored", "keep.archived", "keep.archived#2"} {
		t.Run(fp, func(t *testing.T) {
			fx.reset(t)
			killedAt(t, home, ws, fp, "attempts", "keep", good.Name, "--archive")
			var now api.AttemptSet
			if err := json.Unmarshal([]byte(mustRun(t, home, "attempts", "show", set.ID, "--json")), &now); err != nil {
				t.Fatal(err)
			}
			switch got := files(t, ws); now.Kept {
			case good.Session:
				if d := sameFiles(got, kept); d != "" {
					t.Fatalf("kept, but the files are not the attempt's: %s", d)
				}
			case "":
				if d := sameFiles(got, before); d != "" || headSeq(t, home, "s") != head {
					t.Fatalf("not kept, but the original changed: files %s, head %d (was %d)", d, headSeq(t, home, "s"), head)
				}
			default:
				t.Fatalf("the set says %s was kept", now.Kept)
			}
			mustRun(t, home, "attempts", "keep", good.Name, "--archive")
			if d := sameFiles(files(t, ws), kept); d != "" {
				t.Fatalf("the keep asked again did not bring the attempt's files: %s", d)
			}
			listed := mustRun(t, home, "sessions")
			if strings.Contains(listed, set.Rows[1].Name) || strings.Contains(listed, set.Rows[2].Name) {
				t.Fatalf("the others are not archived:\n%s", listed)
			}
			if log := mustRun(t, home, "log", "s"); strings.Count(log, "attempt.kept") != 1 {
				t.Fatalf("the original's history holds %d attempt.kept:\n%s", strings.Count(log, "attempt.kept"), log)
			}
			if out, errs, code := run(t, home, "verify"); code != 0 {
				t.Fatalf("verify after the kill: exit %d %s %s", code, out, errs)
			}
			var all []sessionRow // archived members keep their working copies
			if err := json.Unmarshal([]byte(mustRun(t, home, "sessions", "--all", "--json")), &all); err != nil {
				t.Fatal(err)
			}
			if left := leftovers(t, home, ws, all); len(left) > 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
}
