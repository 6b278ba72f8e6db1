package crash

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"exo/app/e2e/exobuild"
	"exo/harness/provider/providertest"
)

// killedAt runs exo with EXO_FAILPOINT=fp and checks that the process doing the work died by
// SIGKILL at that point (a failpoint that is never reached fails the test). The work happens in
// the daemon: any running daemon is stopped first, so the command starts one that inherits
// EXO_FAILPOINT; the failpoint then kills that daemon (with its git or shell children for a
// "/group" point) and the command reports the lost daemon.
func killedAt(t *testing.T, home, dir, fp string, args ...string) {
	t.Helper()
	stopDaemon(t, home)
	logPath := filepath.Join(home, "daemon.log")
	before, _ := os.ReadFile(logPath)
	cmd := exec.Command(exoBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "EXO_HOME="+home, "EXO_FAILPOINT="+fp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &errb, &errb
	err := cmd.Run()
	name := strings.FieldsFunc(fp, func(r rune) bool { return r == '/' || r == '@' || r == '#' })[0]
	after, _ := os.ReadFile(logPath)
	logged := string(after[min(len(before), len(after)):])
	if err == nil || !strings.Contains(logged, "failpoint "+name) {
		t.Fatalf("exo %v with %s: the daemon was not killed there: %v\n%s\ndaemon log:\n%s", args, fp, err, errb.String(), logged)
	}
	waitDaemonGone(t, home)
}

// stopDaemon stops home's daemon, if one runs.
func stopDaemon(t *testing.T, home string) {
	t.Helper()
	exobuild.StopDaemon(exoBin, home)
}

// waitDaemonGone waits until the daemon named in home's daemon.json has exited.
func waitDaemonGone(t *testing.T, home string) {
	t.Helper()
	var info struct{ Pid int }
	b, err := os.ReadFile(filepath.Join(home, "daemon.json"))
	if err != nil || json.Unmarshal(b, &info) != nil || info.Pid <= 0 {
		return
	}
	for i := 0; i < 1000 && syscall.Kill(info.Pid, 0) == nil; i++ {
		time.Sleep(10 * time.Millisecond)
	}
}

// fixture keeps a copy of some directories (EXO_HOME, a workspace) after an expensive setup,
// so that every kill point starts from the same state at the same paths.
type fixture struct{ dirs, saved []string }

// saveFixture copies dirs aside; the first is EXO_HOME, whose daemon is stopped first (it holds
// the database open).
func saveFixture(t *testing.T, dirs ...string) *fixture {
	t.Helper()
	stopDaemon(t, dirs[0])
	f := &fixture{dirs: dirs}
	for _, d := range dirs {
		s := filepath.Join(t.TempDir(), "saved")
		if out, err := exec.Command("cp", "-a", d, s).CombinedOutput(); err != nil {
			t.Fatalf("save %s: %v %s", d, err, out)
		}
		f.saved = append(f.saved, s)
	}
	return f
}

// reset puts the saved directories back in place.
func (f *fixture) reset(t *testing.T) {
	t.Helper()
	stopDaemon(t, f.dirs[0])
	for i, d := range f.dirs {
		os.RemoveAll(d)
		if out, err := exec.Command("cp", "-a", f.saved[i], d).CombinedOutput(); err != nil {
			t.Fatalf("restore %s: %v %s", d, err, out)
		}
	}
}

// files reads every file of a workspace (outside .git) by relative path.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" && d.IsDir() {
			return filepath.SkipDir
		}
		if d.Name() == ".git" { // a worktree's link to its repository
			return nil
		}
		if d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

// sameFiles describes how got differs from want ("" when equal).
func sameFiles(got, want map[string]string) string {
	var diff []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			diff = append(diff, p+" missing")
		} else if g != w {
			diff = append(diff, p+" differs")
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			diff = append(diff, p+" extra")
		}
	}
	sort.Strings(diff)
	if len(diff) > 5 {
		diff = append(diff[:5], fmt.Sprintf("and %d more", len(diff)-5))
	}
	return strings.Join(diff, ", ")
}

// diffCount counts the paths that differ between two trees.
func diffCount(a, b map[string]string) int {
	n := 0
	for p, v := range a {
		if b[p] != v {
			n++
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			n++
		}
	}
	return n
}

// sessionRow is one row of `exo sessions --json`.
type sessionRow struct {
	ID, Name, Status, Workspace string
	Branches                    int
}

// sessionRows returns `exo sessions --json`.
func sessionRows(t *testing.T, home string) []sessionRow {
	t.Helper()
	var rows []sessionRow
	if err := json.Unmarshal([]byte(mustRun(t, home, "sessions", "--json")), &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

// headSeq returns the last seq of a session's history.
func headSeq(t *testing.T, home, session string) uint64 {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(mustRun(t, home, "log", session, "--json")), "\n")
	var e struct{ Seq uint64 }
	json.Unmarshal([]byte(lines[len(lines)-1]), &e)
	return e.Seq
}

// writeTree makes n files under dir with a version tag, plus one file only that version has.
func writeTree(t *testing.T, dir, version string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("src/d%d/f%03d.txt", i%10, i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprintf("file %d at %s\n", i, version)), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "only-"+version+".txt"), []byte(version), 0o644)
}

// leftovers lists what a killed exo may leave behind in EXO_HOME and the source repository:
// git locks and temporary objects, partial blobs, fork copies no session uses, worktree records
// for them.
func leftovers(t *testing.T, home, repo string, rows []sessionRow) []string {
	t.Helper()
	// The daemon may be snapshotting the workspace in the background right now (its watcher saw
	// the files a restore wrote), holding the shadow repository's index lock as it should:
	// stopping it waits for that work, so what is left after is what a crash left.
	run(t, home, "daemon", "stop")
	var out []string
	for _, pat := range []string{"shadow/*.git/*.lock", "shadow/*.git/refs/exo/*.lock", "shadow/*.git/objects/??/tmp_obj_*", "artifacts/tmp/*"} {
		m, _ := filepath.Glob(filepath.Join(home, pat))
		out = append(out, m...)
	}
	used := map[string]bool{}
	for _, r := range rows {
		used[r.Workspace] = true
	}
	copies, _ := filepath.Glob(filepath.Join(home, "workspaces", "*"))
	for _, c := range copies {
		if !used[c] {
			out = append(out, c+" (no session uses it)")
		}
	}
	if repo != "" {
		recs, _ := filepath.Glob(filepath.Join(repo, ".git", "worktrees", "*", "gitdir"))
		for _, r := range recs {
			b, _ := os.ReadFile(r)
			if d := filepath.Dir(strings.TrimSpace(string(b))); !used[d] {
				out = append(out, "worktree record "+r+" for "+d)
			}
		}
		if _, err := os.Stat(filepath.Join(repo, ".git", "index.lock")); err == nil {
			out = append(out, "the user's .git/index.lock")
		}
	}
	return out
}

// gitRepo makes a git repository with n committed files.
func gitRepo(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, "base", n)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return dir
}

// checkRecovered runs the checks every kill point must pass once the next command has run:
// verify holds and nothing is left behind.
func checkRecovered(t *testing.T, home, repo, point string) {
	t.Helper()
	if out, errs, code := run(t, home, "verify"); code != 0 {
		t.Fatalf("%s: verify after the kill: exit %d %s %s", point, code, out, errs)
	}
	rows := sessionRows(t, home)
	if left := leftovers(t, home, repo, rows); len(left) > 0 {
		t.Fatalf("%s: left behind: %v", point, left)
	}
	for _, r := range rows {
		if r.Status == "running" || r.Status == "waiting" {
			t.Fatalf("%s: session %s still shown %s", point, r.Name, r.Status)
		}
	}
}

// TestKillDuringFirstSnapshot kills exo (alone, and with its git) while git writes the shadow
// index of the first snapshot and at the later steps of it: the next command must work, leave
// no lock, and the baseline taken then must restore the files.
func TestKillDuringFirstSnapshot(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	writeTree(t, ws, "v1", 200)
	mustRun(t, home, "new", "--name", "s", "--workspace", ws)
	fx := saveFixture(t, home, ws)
	for _, fp := range []string{"git.update-index/group", "git.update-index", "git.write-tree/group", "git.update-ref/group", "baseline.after-snapshot"} {
		t.Run(fp, func(t *testing.T) {
			fx.reset(t)
			killedAt(t, home, ws, fp, "exec", "s", "--", "true")
			if locks, _ := filepath.Glob(filepath.Join(home, "shadow", "*.git", "exo-index.lock")); fp == "git.update-index/group" && len(locks) == 0 {
				t.Fatal("killing exo and git mid-write left no lock: the test does not test recovery")
			}
			mustRun(t, home, "exec", "s", "--", "sh", "-c", "echo v2 > only-v1.txt")
			mustRun(t, home, "rewind", "s@1")
			if got := files(t, ws); got["only-v1.txt"] != "v1" || got["src/d0/f000.txt"] != "file 0 at v1\n" {
				t.Fatalf("the baseline taken after the kill does not restore the files: %q", got["only-v1.txt"])
			}
			checkRecovered(t, home, "", fp)
		})
	}
}

// TestKillDuringRewind kills exo at every step of a rewind (with and without git, and in the
// middle of git writing the files): after the next command the files are either untouched (the
// rewind did not happen) or fully restored (it did), verify holds, and nothing is left behind.
func TestKillDuringRewind(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	writeTree(t, ws, "v1", 200)
	mustRun(t, home, "new", "--name", "s", "--workspace", ws)
	mustRun(t, home, "exec", "s", "--", "true")
	k1, v1 := headSeq(t, home, "s"), files(t, ws)
	os.Remove(filepath.Join(ws, "only-v1.txt"))
	writeTree(t, ws, "v2", 200)
	mustRun(t, home, "exec", "s", "--", "true")
	v2 := files(t, ws)
	fx := saveFixture(t, home, ws)
	points := []string{"rewind.after-keep", "rewind.after-events", "restore.before", "git.read-tree/group", "git.read-tree@40ms/group",
		"git.read-tree", "git.commit-tree/group", "restore.after-files", "after.workspace.restored"}
	for _, fp := range points {
		t.Run(fp, func(t *testing.T) {
			fx.reset(t)
			killedAt(t, home, ws, fp, "rewind", fmt.Sprintf("s@%d", k1))
			before := files(t, ws)
			t.Logf("right after the kill, %d paths differ from v1 and %d from v2", diffCount(before, v1), diffCount(before, v2))
			rows := sessionRows(t, home) // the next command: recovery runs on open
			want, what := v2, "untouched"
			if rows[0].Branches == 2 {
				want, what = v1, "restored"
			}
			if d := sameFiles(files(t, ws), want); d != "" {
				t.Fatalf("files neither untouched nor restored (want %s): %s", what, d)
			}
			checkRecovered(t, home, "", fp)
		})
	}
}

// TestKillDuringFork kills exo at every step of a fork, from a git repository (worktree) and
// from a plain folder (copy): after the next command the sibling either exists with the files
// as they were at the fork point, or does not exist and left no copy or worktree record.
func TestKillDuringFork(t *testing.T) {
	t.Parallel()
	points := []string{"fork.after-journal", "clone.after-worktree", "clone.copy-file#5", "fork.after-clone", "fork.after-events",
		"restore.before", "git.read-tree@40ms/group", "restore.after-files"}
	for _, kind := range []string{"git", "plain"} {
		home, ws, repo := t.TempDir(), t.TempDir(), ""
		if kind == "git" {
			ws = gitRepo(t, 150)
			repo = ws
		} else {
			writeTree(t, ws, "base", 150)
		}
		mustRun(t, home, "new", "--name", "s", "--workspace", ws)
		writeTree(t, ws, "v1", 150)
		mustRun(t, home, "exec", "s", "--", "true")
		k1, v1 := headSeq(t, home, "s"), files(t, ws)
		writeTree(t, ws, "v2", 150)
		mustRun(t, home, "exec", "s", "--", "true")
		fx := saveFixture(t, home, ws)
		for _, fp := range points {
			if kind == "git" && fp == "clone.copy-file#5" || kind == "plain" && fp == "clone.after-worktree" {
				continue
			}
			t.Run(kind+"/"+fp, func(t *testing.T) {
				fx.reset(t)
				killedAt(t, home, ws, fp, "fork", fmt.Sprintf("s@%d", k1), "--name", "f")
				rows := sessionRows(t, home)
				if len(rows) == 2 {
					if d := sameFiles(files(t, rows[1].Workspace), v1); d != "" {
						t.Fatalf("the sibling's files are not those at the fork point: %s", d)
					}
				}
				checkRecovered(t, home, repo, fp)
				if len(rows) == 1 {
					mustRun(t, home, "fork", fmt.Sprintf("s@%d", k1), "--name", "f")
				}
			})
		}
	}
}

// TestKillDuringBigOutput kills exo while a command's large output streams into an artifact:
// no partial blob stays behind and the call is closed as interrupted.
func TestKillDuringBigOutput(t *testing.T) {
	t.Parallel()
	home, ws := t.TempDir(), t.TempDir()
	mustRun(t, home, "new", "--name", "s", "--workspace", ws)
	fx := saveFixture(t, home, ws)
	for _, fp := range []string{"artifact.write#40", "artifact.write#40/group"} {
		t.Run(fp, func(t *testing.T) {
			fx.reset(t)
			killedAt(t, home, ws, fp, "exec", "s", "--", "sh", "-c", "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 200000000")
			if blobs, _ := filepath.Glob(filepath.Join(home, "artifacts", "tmp", "blob-*")); len(blobs) == 0 {
				t.Fatal("the kill left no partial blob: the test does not test recovery")
			}
			log := mustRun(t, home, "log", "s", "--json")
			if !strings.Contains(log, `"interrupted":true`) {
				t.Fatalf("the killed call is not closed as interrupted:\n%s", log)
			}
			checkRecovered(t, home, "", fp)
		})
	}
}

// TestKillDuringTurn kills exo right after each durable step of a turn: the session must not
// stay "running", its open tool call is closed as interrupted, and the next turn runs.
func TestKillDuringTurn(t *testing.T) {
	t.Parallel()
	// after.model.completed: the answer that asks for a tool is held for the commit of the call's
	// start, or committed alone when that takes longer (here the first snapshot comes between):
	// a kill after it leaves an answer whose call never started.
	for _, fp := range []string{"after.step.started", "after.model.requested", "after.model.completed", "after.tool.started", "after.workspace.snapshot#2"} {
		t.Run(fp, func(t *testing.T) {
			srv := providertest.NewScriptedChat(
				providertest.ChatReply{Text: "Writing.", ToolCalls: []providertest.ChatToolCall{{ID: "c1", Name: "bash", Args: `{"command":"echo hi > out.txt"}`}}},
				providertest.ChatReply{Text: "Done."},
			)
			defer srv.Close()
			home, ws := t.TempDir(), t.TempDir()
			mustRunIn(t, home, ws, "model", "register", "m", "--provider", "openai-compatible", "--base-url", srv.BaseURL())
			killedAt(t, home, ws, fp, "run", "write a file")
			rows := sessionRows(t, home)
			if len(rows) != 1 || rows[0].Status != "interrupted" {
				t.Fatalf("after a kill at %s the session is %+v, want interrupted", fp, rows)
			}
			log := mustRun(t, home, "log", rows[0].ID, "--json")
			if !strings.Contains(log, `"turn.interrupted"`) {
				t.Fatalf("no turn.interrupted:\n%s", log)
			}
			if fp == "after.tool.started" && !strings.Contains(log, `"interrupted":true`) {
				t.Fatalf("the open call is not closed:\n%s", log)
			}
			checkRecovered(t, home, "", fp)
			srv.SetReplies(providertest.ChatReply{Text: "Carrying on."})
			if out, errs, code := exoEnv(t, home, ws, nil, "run", "--session", rows[0].ID, "go on"); code != 0 || !strings.Contains(out, "Carrying on.") {
				t.Fatalf("the next turn: exit %d %s %s", code, out, errs)
			}
		})
	}
}

// mustRunIn runs exo in dir and fails on a non-zero exit.
func mustRunIn(t *testing.T, home, dir string, args ...string) string {
	t.Helper()
	out, errs, code := exoEnv(t, home, dir, nil, args...)
	if code != 0 {
		t.Fatalf("exo %v: exit %d: %s", args, code, errs)
	}
	return out
}
