package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"
)

// TestShellControlFilesNotFollowed: from inside the sandbox, the agent replaces the shell's
// command file, then its folder, with links to a file and a folder outside. exo's next
// commands must still run, and nothing outside may be created or changed.
func TestShellControlFilesNotFollowed(t *testing.T) {
	cfg := testConfig(t)
	outside := t.TempDir()
	target := filepath.Join(outside, "bashrc")
	os.WriteFile(target, []byte("# user's file\n"), 0o644)
	sh := newTestShell(t, cfg)
	plant := []string{
		`ln -sf ` + quote(target) + ` "$TMPDIR/.exo-shell/cmd.sh"`,
		`ln -sf ` + quote(target) + ` "$TMPDIR/.exo-shell/init.sh"; exit 0`, // the next shell's init file too
		`mv "$TMPDIR/.exo-shell" "$TMPDIR/moved" && ln -s ` + quote(outside) + ` "$TMPDIR/.exo-shell"`,
	}
	for i, p := range plant {
		run(t, sh, p, RunOptions{})
		r := run(t, sh, "echo next-command-"+string(rune('a'+i)), RunOptions{})
		if b, _ := os.ReadFile(target); string(b) != "# user's file\n" {
			t.Fatalf("after plant %d exo wrote the command into the file outside: %q", i, b)
		}
		if !strings.Contains(r.Output, "next-command-") {
			t.Fatalf("after plant %d the next command did not run: %+v", i, r)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "# user's file\n" {
		t.Fatalf("the file outside was written through the planted link: %q", b)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Fatalf("the folder outside has %d entries", len(ents))
	}
	if fi, err := os.Lstat(filepath.Join(cfg.TmpDir, ".exo-shell")); err != nil || !fi.IsDir() {
		t.Fatalf("control folder not restored: %v %v", fi, err)
	}
}

// checkOutsideIntact fails when the outside folder no longer holds exactly its one file.
func checkOutsideIntact(t *testing.T, outside string, what string) {
	t.Helper()
	ents, _ := os.ReadDir(outside)
	b, _ := os.ReadFile(filepath.Join(outside, "victim.txt"))
	if len(ents) != 1 || string(b) != "must survive\n" {
		names := []string{}
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("%s: the outside folder now holds %v (victim %q)", what, names, b)
	}
}

// TestRestoreRaceSwappedFolder restores snapshots in a loop while another process keeps
// swapping the folder being restored for a link to a folder outside: restore never writes
// or deletes outside.
func TestRestoreRaceSwappedFolder(t *testing.T) {
	ws := newRepo(t)
	outside := t.TempDir()
	write(t, outside, "victim.txt", "must survive\n")
	for i := range 20 {
		write(t, ws, fmt.Sprintf("d/f%02d.txt", i), "v1\n")
	}
	snap, err := NewSnapshotter(ws, ShadowDir(t.TempDir(), ws), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	s1, err := snap.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		os.Remove(filepath.Join(ws, fmt.Sprintf("d/f%02d.txt", i)))
		write(t, ws, fmt.Sprintf("d/g%02d.txt", i), "v2\n")
	}
	s2, err := snap.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	swaps := swapLoop(t, ws, "d", outside)
	deadline := time.Now().Add(2 * time.Second)
	n := 0
	for ; time.Now().Before(deadline) || n < 10; n++ {
		target := s1.Commit
		if n%2 == 1 {
			target = s2.Commit
		}
		snap.Restore(target) // may fail on a refused link; must never touch outside.
		snap.RestorePaths(target, []string{"d/f00.txt", "d/g00.txt", "d"})
		checkOutsideIntact(t, outside, fmt.Sprintf("restore %d (%d swaps)", n, swaps.Load()))
	}
	t.Logf("%d restores against %d swaps held", n, swaps.Load())
}

// TestCloneRaceSwappedFolder forks a workspace (a plain folder and a git repository with
// uncommitted files) while another process keeps swapping one of its folders for a link to a
// folder outside: the copy never reads the outside files into the fork.
func TestCloneRaceSwappedFolder(t *testing.T) {
	for _, kind := range []string{"plain", "git"} {
		t.Run(kind, func(t *testing.T) {
			var ws string
			if kind == "git" {
				ws = newRepo(t)
			} else {
				ws = filepath.Join(t.TempDir(), "plain")
				write(t, ws, "a.txt", "a\n")
			}
			outside := t.TempDir()
			write(t, outside, "victim.txt", "must survive\n")
			write(t, ws, "d/f.txt", "inside\n")
			swaps := swapLoop(t, ws, "d", outside)
			deadline := time.Now().Add(time.Second)
			n := 0
			for ; time.Now().Before(deadline) || n < 5; n++ {
				dst := filepath.Join(t.TempDir(), "fork")
				CloneWorkspace(ws, dst, CloneOptions{Caps: testCaps()})
				filepath.WalkDir(dst, func(p string, e fs.DirEntry, err error) error {
					if err == nil && e.Name() == "victim.txt" {
						t.Fatalf("clone %d copied %s from outside the workspace", n, p)
					}
					return nil
				})
				RemoveWorkspace(dst)
			}
			checkOutsideIntact(t, outside, "after the clones")
			t.Logf("%d clones against %d swaps held", n, swaps.Load())
		})
	}
}

// TestForkRaceWorktreesLink forks a repository while another process keeps swapping its
// .git/worktrees folder for a link to a folder outside (planting the link again whenever exo
// removes it): git's worktree add, confined, never creates anything outside, not even for a
// moment (an inotify watch on the outside folder sees every creation).
func TestForkRaceWorktreesLink(t *testing.T) {
	ws := newRepo(t)
	outside := t.TempDir()
	write(t, outside, "victim.txt", "must survive\n")
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer fsw.Close()
	if err := fsw.Add(outside); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(ws, ".git", "worktrees"), filepath.Join(ws, ".git", "worktrees.alt")
	os.MkdirAll(a, 0o755)
	stop, done := make(chan struct{}), make(chan struct{})
	var swaps atomic.Int64
	go func() {
		defer close(done)
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			if fi, err := os.Lstat(b); err == nil && fi.IsDir() {
				os.Rename(b, filepath.Join(ws, ".git", fmt.Sprintf("old-%d", n)))
			}
			os.Symlink(outside, b)
			if unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE) == nil {
				swaps.Add(1)
			}
		}
	}()
	deadline := time.Now().Add(3 * time.Second)
	n, made := 0, 0
	for ; time.Now().Before(deadline) || n < 5; n++ {
		dst := filepath.Join(t.TempDir(), "fork")
		if _, err := CloneWorkspace(ws, dst, CloneOptions{Caps: testCaps()}); err == nil {
			made++
		}
	}
	close(stop)
	<-done
	select {
	case ev := <-fsw.Events:
		t.Fatalf("after %d forks against %d swaps, git wrote outside: %v", n, swaps.Load(), ev)
	case <-time.After(200 * time.Millisecond):
	}
	checkOutsideIntact(t, outside, "after the forks")
	t.Logf("%d forks (%d made) against %d swaps held", n, made, swaps.Load())
}

// TestSnapshotRaceSwappedFolder snapshots in a loop while another process keeps swapping a
// folder of decoys for a link to a folder of secrets with the same names (exo's home, say):
// no snapshot ever holds a secret, though git reads the workspace unconfined, and none fails (git
// refusing a path beyond a link once failed every other one: exo exec errored, rewind lost it).
func TestSnapshotRaceSwappedFolder(t *testing.T) {
	ws := newRepo(t)
	outside := t.TempDir()
	const rounds = 40
	for i := range rounds {
		write(t, outside, fmt.Sprintf("k%02d", i), "OUTSIDE-SECRET\n")
	}
	snap, err := NewSnapshotter(ws, ShadowDir(t.TempDir(), ws), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { snap.Close() })
	swaps := swapLoop(t, ws, "d", outside)
	for i := range rounds {
		for _, dir := range []string{"d", "d.alt"} { // the decoy goes in whichever is the folder now
			if fi, err := os.Lstat(filepath.Join(ws, dir)); err == nil && fi.IsDir() {
				os.WriteFile(filepath.Join(ws, dir, fmt.Sprintf("k%02d", i)), []byte("decoy\n"), 0o644)
			}
		}
		s, err := snap.Snapshot()
		if err != nil {
			t.Fatalf("round %d (%d swaps): a snapshot failed: %v", i, swaps.Load(), err)
		}
		if out, _ := snap.git.run(nil, "grep", "-l", "OUTSIDE-SECRET", s.Commit); len(out) > 0 {
			t.Fatalf("round %d (%d swaps): a snapshot holds a file from outside: %s", i, swaps.Load(), out)
		}
	}
	t.Logf("%d snapshots against %d swaps held", rounds, swaps.Load())
}
