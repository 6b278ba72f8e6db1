package conventions

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitInit makes the user's project a git repository with one commit.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	write(t, filepath.Join(dir, "README.md"), "hello\n")
	cmd := exec.Command("sh", "-c", "git init -q && git -c user.email=t@e -c user.name=t add -A && git -c user.email=t@e -c user.name=t commit -qm one")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git: %v %s", err, out)
	}
}

// worktreeList is the project's `git worktree list`.
func worktreeList(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "worktree", "list").CombinedOutput()
	if err != nil {
		t.Fatalf("git worktree list: %v %s", err, out)
	}
	return string(out)
}

// sessionNames lists exo sessions --json's names (with --all when all).
func sessionNames(t *testing.T, u *user, all bool) []string {
	t.Helper()
	args := []string{"sessions", "--json"}
	if all {
		args = append(args, "--all")
	}
	var rows []struct{ Name string }
	if err := json.Unmarshal([]byte(u.must(args...)), &rows); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, r.Name)
	}
	return out
}

// TestSessionRmArchiveAndGC: a fork removed with exo session rm leaves the user's git worktree
// list, even when the daemon is killed right after marking it deleted (the next start
// finishes); rm asks first and refuses a session with a running task; archive hides a session
// until --all; gc lists, asks, and removes what no session uses.
func TestSessionRmArchiveAndGC(t *testing.T) {
	u := newUser(t)
	gitInit(t, u.project)
	u.must("new", "--name", "main")
	u.must("exec", "main", "--", "sh", "-c", "echo v1 > f.txt")
	u.must("fork", "main", "--name", "sib")
	var sib struct{ Workspace string }
	json.Unmarshal([]byte(u.must("new", "--name", "probe", "--json")), &sib) // a third session, for archive
	var rows []struct{ Name, Workspace string }
	json.Unmarshal([]byte(u.must("sessions", "--json")), &rows)
	for _, r := range rows {
		if r.Name == "sib" {
			sib.Workspace = r.Workspace
		}
	}
	if sib.Workspace == "" || !strings.Contains(worktreeList(t, u.project), sib.Workspace) {
		t.Fatalf("the fork is not in git worktree list:\n%s", worktreeList(t, u.project))
	}
	if _, errs, code := u.exoStdin("", "n\n", "session", "rm", "sib"); code != 1 || !strings.Contains(errs, "Remove session sib") {
		t.Fatalf("rm without --yes answered no: exit %d %q", code, errs)
	}
	// Killed right after the session is marked deleted, before any folder is removed.
	u.must("daemon", "stop")
	u.env = append(u.env, "EXO_FAILPOINT=remove.after-mark")
	if _, _, code := u.exo("", "session", "rm", "--yes", "sib"); code == 0 {
		t.Fatal("the failpoint did not fire")
	}
	u.env = u.env[:len(u.env)-1]
	if _, err := os.Stat(sib.Workspace); err != nil {
		t.Fatalf("the daemon did not die between marking and removing: %v", err)
	}
	u.must("daemon", "stop") // whatever is left; the next command starts a clean daemon
	names := sessionNames(t, u, true)
	if strings.Contains(strings.Join(names, " "), "sib") {
		t.Fatalf("the deleted session is listed: %v", names)
	}
	if strings.Contains(worktreeList(t, u.project), sib.Workspace) {
		t.Fatalf("after the restart the fork is still in git worktree list:\n%s", worktreeList(t, u.project))
	}
	if _, err := os.Stat(sib.Workspace); !os.IsNotExist(err) {
		t.Fatalf("the fork's working copy is still there: %v", err)
	}
	if _, errs, code := u.exo("", "log", "sib"); code != 2 || !strings.Contains(errs, "no such session") {
		t.Fatalf("log of a deleted session: %d %q", code, errs)
	}
	if out := u.must("verify"); strings.Contains(out, "bad") {
		t.Fatalf("verify after rm: %s", out)
	}
	// A running background task keeps a session.
	u.must("exec", "main", "--background", "--", "sleep", "60")
	if _, errs, code := u.exo("", "session", "rm", "--yes", "main"); code != 2 || !strings.Contains(errs, "background task") {
		t.Fatalf("rm of a session with a running task: %d %q", code, errs)
	}
	// Archive.
	u.must("session", "archive", "probe")
	if names := sessionNames(t, u, false); strings.Contains(strings.Join(names, " "), "probe") {
		t.Fatalf("an archived session is listed: %v", names)
	}
	if out := u.must("sessions", "--all"); !strings.Contains(out, "(archived)") {
		t.Fatalf("sessions --all: %s", out)
	}
	u.must("session", "archive", "--undo", "probe")
	if names := sessionNames(t, u, false); !strings.Contains(strings.Join(names, " "), "probe") {
		t.Fatalf("an unarchived session is hidden: %v", names)
	}
	// gc: a working copy a crashed fork left behind, and nothing of the live sessions.
	stray := filepath.Join(u.home, "workspaces", "0123456789abcdef")
	write(t, filepath.Join(stray, "x.txt"), "left behind")
	out := u.must("gc", "--dry-run")
	if !strings.Contains(out, stray) || !strings.Contains(out, "would free") {
		t.Fatalf("gc --dry-run: %s", out)
	}
	if _, _, code := u.exoStdin("", "n\n", "gc"); code != 1 {
		t.Fatalf("gc answered no: exit %d", code)
	}
	if _, err := os.Stat(stray); err != nil {
		t.Fatal("gc removed without a yes")
	}
	if out := u.must("gc", "--yes"); !strings.Contains(out, "freed") {
		t.Fatalf("gc --yes: %s", out)
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Fatal("gc --yes left the stray copy")
	}
	if out := u.must("gc", "--dry-run"); !strings.Contains(out, "in 0 folders") {
		t.Fatalf("gc after gc: %s", out)
	}
	if _, err := os.Stat(filepath.Join(u.project, "f.txt")); err != nil {
		t.Fatal("the user's workspace lost a file")
	}
}
