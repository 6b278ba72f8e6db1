package sandbox

import (
	"path/filepath"
	"sync"
)

// git (2.39 here) keeps no lock on a repository's worktrees folder: `git worktree add`
// lists the other worktrees (reading each record's commondir) while a concurrent add has made
// its own record's folder but not yet written the files in it, and fails with
// "fatal: failed to read .git/worktrees/NAME/commondir: Success". Removing a record (prune, a
// discarded clone) races the same way. So exo changes one repository's worktree records one at a
// time; everything else a fork does (checkout into its own folder, status of the source, the copy
// of uncommitted files) runs in parallel. The lock is this process's: another program's
// concurrent `git worktree add` on the same repository can still race one of exo's.

// worktreeLocks holds one mutex per repository's common git dir.
var worktreeLocks sync.Map // string → *sync.Mutex

// lockWorktrees locks the worktree records of the repository whose common git dir is common,
// for this process, and returns the unlock.
func lockWorktrees(common string) func() {
	key := filepath.Clean(common)
	if real, err := filepath.EvalSymlinks(key); err == nil {
		key = real
	}
	v, _ := worktreeLocks.LoadOrStore(key, new(sync.Mutex))
	mu := v.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}
