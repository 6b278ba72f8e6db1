package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CloneOptions tune CloneWorkspace.
type CloneOptions struct {
	// Caps are the host's capabilities (from Probe). With Landlock or a mount namespace, git's
	// worktree add runs under the helper, able to write only the new worktree, the source
	// workspace and its repository's worktrees folder, whatever link the agent swaps in while
	// it runs; zero Caps run it unconfined (hardened all the same).
	Caps Capabilities
	// Helper is the argv prefix that runs HelperMain; default {os.Executable(), HelperCommand}.
	Helper []string
	// Hide are folders the confined git must not see (exo's home).
	Hide []string
	// Private are exo's own folders (absolute: its home, its runtime folder); one inside the
	// workspace is not copied into the clone.
	Private []string
}

// worktreesDir returns the repository's worktrees folder, made a real folder: for a .git
// folder in src it is created beneath src refusing links (a link planted there is removed);
// for a linked worktree (a .git file) it must already exist in the common git dir.
func worktreesDir(g gitRunner, src string) (string, error) {
	if g.gitDir != "" {
		d, err := OpenDir(src)
		if err != nil {
			return "", err
		}
		defer d.Close()
		if fi, err := d.Lstat(".git/worktrees"); err == nil && !fi.IsDir() {
			if err := d.RemoveAll(".git/worktrees"); err != nil {
				return "", err
			}
		}
		if err := d.MkdirAll(".git/worktrees", 0o755); err != nil {
			return "", fmt.Errorf("worktrees folder: %w", err)
		}
		return filepath.Join(src, ".git", "worktrees"), nil
	}
	common, err := g.line("rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", err
	}
	w := filepath.Join(common, "worktrees")
	if fi, err := os.Lstat(w); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("linked worktree without a worktrees folder in %s", common)
	}
	return w, nil
}

// addWorktree runs `git worktree add --no-checkout --detach dst COMMIT` for the repository at
// src, confined when the host allows it; dst is removed again when it fails. No checkout runs
// here (a checkout would run the drivers the repository's config names): cloneWorktree writes
// the files with a pinned git dir.
func addWorktree(g gitRunner, src, dst, commit string, opts CloneOptions) error {
	wt, err := worktreesDir(g, src)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "exo-git-")
	if err != nil {
		return fmt.Errorf("git worktree add: %w", err)
	}
	defer os.RemoveAll(tmp)
	cfg, err := Config{Workspace: src, TmpDir: tmp, Helper: opts.Helper, Hide: opts.Hide, Fallback: RunUnconfined}.normalized()
	if err != nil {
		return err
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return fmt.Errorf("git worktree add: %w", err)
	}
	// Added after normalizing on purpose: the helper opens these refusing links; they are never
	// resolved here, where the agent could have swapped a link in.
	cfg.ExtraWritable = []string{dst, wt}
	if common := filepath.Dir(wt); g.gitDir == "" && strings.HasPrefix(common, "/tmp/") {
		// A linked worktree's repository under /tmp is not the workspace, and the private /tmp
		// would hide it: git must read its objects, refs and config, so it is bound in (as the
		// worktrees folder is; the confinement still keeps writes inside these folders).
		cfg.ExtraWritable = []string{dst, common}
	}
	unlock := lockWorktrees(filepath.Dir(wt))
	err = confinedGit(g, cfg, opts.Caps, "worktree", "add", "--quiet", "--no-checkout", "--detach", dst, commit)
	unlock()
	if err != nil {
		os.RemoveAll(dst)
		return err
	}
	return nil
}

// confinedGit runs git under the helper with cfg's confinement (unconfined, hardened all the
// same, when the host has neither Landlock nor mount namespaces).
func confinedGit(g gitRunner, cfg Config, caps Capabilities, args ...string) error {
	enf, _ := plan(cfg, caps)
	if enf.Filesystem == FSNone {
		_, err := g.run(nil, args...)
		return err
	}
	cmd, err := helperCmd(cfg, enf, g.workTree, "git", g.argv(args...)...)
	if err != nil {
		return err
	}
	cmd.Env = append(g.env(), "TMPDIR="+cfg.TmpDir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	removeCgroup(cmd)
	if err != nil {
		return fmt.Errorf("git %s (confined): %w: %s", strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return nil
}
