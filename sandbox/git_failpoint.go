package sandbox

import (
	"os/exec"
	"path/filepath"
	"time"

	"exo/store/failpoint"
)

// runGit runs a prepared git command. With a failpoint "git.SUBCOMMAND" set, it starts git,
// waits until git holds a lock in the shadow repository (or a moment passes) and fires the
// failpoint there: exo (and, with /group, git too) dies mid-write, as a kill -9 would leave it.
func (g gitRunner) runGit(cmd *exec.Cmd, sub string) error {
	if !failpoint.Enabled("git." + sub) {
		return cmd.Run()
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if locks, _ := filepath.Glob(filepath.Join(g.gitDir, "*.lock")); len(locks) > 0 {
			break
		}
	}
	failpoint.Hit("git." + sub)
	return cmd.Wait()
}
