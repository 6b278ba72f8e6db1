package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// homeInWorkspace makes a workspace (a git repository, or a plain folder) holding exo's home
// at .exo, as when exo runs in the home folder with its home at ~/.exo: a secret key, a
// database, and the shadow repository of the workspace itself.
func homeInWorkspace(t *testing.T, repo bool) (ws, home, key string) {
	t.Helper()
	if repo {
		ws = newRepo(t)
	} else {
		ws = filepath.Join(t.TempDir(), "plain")
		write(t, ws, "a.txt", "a\n")
	}
	home = filepath.Join(ws, ".exo")
	key = "SECRET-KEY-BYTES-" + strings.Repeat("k", 40)
	write(t, home, "secret.key", key)
	write(t, home, "exo.db", "database "+key)
	return ws, home, key
}

// shadowHolds reports whether any object of the shadow repository holds needle.
func shadowHolds(t *testing.T, shadow, needle string) bool {
	t.Helper()
	cmd := exec.Command("git", "--git-dir", shadow, "cat-file", "--batch-all-objects", "--batch")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cat-file: %v", err)
	}
	return bytes.Contains(out, []byte(needle))
}

// TestSnapshotLeavesExoHomeOut: with exo's home (its key, database and the shadow repository
// itself) inside the workspace, no snapshot captures it (every object searched for the key), a
// snapshot after exo's own writes there changes nothing, a restore never touches it, and a
// shadow index that captured it before drops it.
func TestSnapshotLeavesExoHomeOut(t *testing.T) {
	ws, home, key := homeInWorkspace(t, true)
	shadow := ShadowDir(home, ws)
	snap, err := NewSnapshotter(ws, shadow, SnapshotOptions{Private: []string{home}})
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	s1, err := snap.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	write(t, ws, "edit.txt", "v2\n")
	write(t, home, "exo.db", "database grew "+key)
	s2, err := snap.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if len(s2.Changed) != 1 || s2.Changed[0].Path != "edit.txt" {
		t.Fatalf("changes %+v, want only edit.txt", s2.Changed)
	}
	if s3, err := snap.Snapshot(); err != nil || s3.Commit != s2.Commit {
		t.Fatalf("a snapshot right after a snapshot (exo's own writes in its home only) made %s, want %s: %v", s3.Commit, s2.Commit, err)
	}
	if _, err := snap.Restore(s1.Commit); err != nil {
		t.Fatal(err)
	}
	checkFile(t, home, "secret.key", key)
	checkFile(t, home, "exo.db", "database grew "+key)
	if shadowHolds(t, shadow, key) {
		t.Fatal("the secret key is in the shadow repository's objects")
	}
	if !slices2Contains(s2.Skipped, ".exo/") {
		t.Errorf("skipped %+v does not name .exo/", s2.Skipped)
	}

	// A shadow repository made before (no Private) captured the home; opened with it, the next
	// snapshot's tree no longer has it.
	ws2, home2, _ := homeInWorkspace(t, false)
	shadow2 := ShadowDir(t.TempDir(), ws2)
	old, _ := NewSnapshotter(ws2, shadow2, SnapshotOptions{})
	if s, err := old.Snapshot(); err != nil || !treeHas(t, shadow2, s.Commit, ".exo/secret.key") {
		t.Fatalf("control: the snapshot without Private did not capture the home: %v", err)
	}
	old.Close()
	now, err := NewSnapshotter(ws2, shadow2, SnapshotOptions{Private: []string{home2}})
	if err != nil {
		t.Fatal(err)
	}
	defer now.Close()
	write(t, ws2, "a.txt", "changed\n")
	s, err := now.Snapshot()
	if err != nil || treeHas(t, shadow2, s.Commit, ".exo/secret.key") {
		t.Fatalf("the home stayed in the snapshot: %v", err)
	}
}

// slices2Contains reports whether skipped names p.
func slices2Contains(skipped []SkippedFile, p string) bool {
	for _, s := range skipped {
		if s.Path == p {
			return true
		}
	}
	return false
}

// treeHas reports whether the commit's tree holds path.
func treeHas(t *testing.T, shadow, commit, path string) bool {
	out, err := exec.Command("git", "--git-dir", shadow, "ls-tree", "-r", "--name-only", commit).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains("\n"+string(out), "\n"+path+"\n")
}

// TestCloneLeavesExoHomeOut: a fork of a workspace holding exo's home (a git repository where
// the home is untracked, and a plain folder) copies nothing of it, and a fork made inside the
// home (where exo keeps its workspaces) does not copy itself.
func TestCloneLeavesExoHomeOut(t *testing.T) {
	for _, repo := range []bool{true, false} {
		ws, home, _ := homeInWorkspace(t, repo)
		dst := filepath.Join(home, "workspaces", "fork")
		os.MkdirAll(filepath.Dir(dst), 0o700)
		kind, err := CloneWorkspace(ws, dst, CloneOptions{Caps: testCaps(), Private: []string{home}})
		if err != nil {
			t.Fatalf("repo %v: %v", repo, err)
		}
		if _, err := os.Lstat(filepath.Join(dst, ".exo")); !os.IsNotExist(err) {
			t.Fatalf("%s fork holds exo's home: %v", kind, err)
		}
		if repo {
			checkFile(t, dst, "keep.txt", "keep\n")
		} else {
			checkFile(t, dst, "a.txt", "a\n")
		}
	}
}

// TestWatchLeavesExoHomeOut: exo's writes in its home inside the workspace are not reported
// as changes (each snapshot would otherwise trigger the next); the workspace's are.
func TestWatchLeavesExoHomeOut(t *testing.T) {
	ws, home, _ := homeInWorkspace(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := Watch(ctx, ws, WatchOptions{Debounce: 30 * time.Millisecond, Private: []string{home}})
	if err != nil {
		t.Fatal(err)
	}
	write(t, home, "shadow/x/objects/ab/cd", "object")
	write(t, home, "exo.db", "grew")
	write(t, ws, "a.txt", "edited")
	for _, p := range collect(t, ch, []string{"a.txt"}) {
		if strings.HasPrefix(p, ".exo") {
			t.Fatalf("a write in exo's home was reported: %s", p)
		}
	}
}
