package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestCloneWorkspaceInParallel makes eight clones of one repository at once, round after round,
// while clones of an earlier round are removed: without one lock on the repository's worktree
// records, git's worktree add failed reading another add's half-written record ("failed to read
// .git/worktrees/NAME/commondir"). Every clone must succeed, hold the source's uncommitted
// edit, and be listed by git exactly once.
func TestCloneWorkspaceInParallel(t *testing.T) {
	t.Parallel()
	src := newRepo(t)
	write(t, src, "edit.txt", "uncommitted edit\n")
	base := t.TempDir()
	var prev []string
	for round := range 4 {
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		dsts := make([]string, 8)
		for i := range dsts {
			dsts[i] = filepath.Join(base, fmt.Sprintf("r%d-%d", round, i))
			wg.Add(1)
			go func(dst string) {
				defer wg.Done()
				if _, err := CloneWorkspace(src, dst, CloneOptions{}); err != nil {
					errs <- err
				}
			}(dsts[i])
		}
		for _, old := range prev {
			wg.Add(1)
			go func(dst string) {
				defer wg.Done()
				if err := DiscardWorktree(dst); err != nil {
					errs <- err
				}
			}(old)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
		for _, d := range dsts {
			checkFile(t, d, "edit.txt", "uncommitted edit\n")
		}
		prev = dsts
	}
	list := userGit(t, src, "worktree", "list", "--porcelain")
	for _, d := range prev {
		if n := strings.Count(list, "worktree "+d+"\n"); n != 1 {
			t.Errorf("%s listed %d times:\n%s", d, n, list)
		}
	}
	if n := strings.Count(list, "worktree "); n != 1+len(prev) {
		t.Errorf("%d worktrees listed, want %d:\n%s", n, 1+len(prev), list)
	}
}

// TestAddWorktreeInParallel runs git's worktree add itself sixteen at a time on one repository,
// the step that raced.
func TestAddWorktreeInParallel(t *testing.T) {
	t.Parallel()
	src := newRepo(t)
	g, ok := repoTop(src)
	if !ok {
		t.Fatal("not a repository top")
	}
	commit, err := g.line("rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	for round := range 3 {
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for i := range 16 {
			wg.Add(1)
			go func(dst string) {
				defer wg.Done()
				if err := addWorktree(g, src, dst, commit, CloneOptions{}); err != nil {
					errs <- err
				}
			}(filepath.Join(base, fmt.Sprintf("r%d-%d", round, i)))
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}
