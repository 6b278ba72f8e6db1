package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// maxExcludeFile bounds the repository's info/exclude copied into a pinned git dir.
const maxExcludeFile = 1 << 20

// repoPaths are where a user repository keeps what a pinned git dir borrows.
type repoPaths struct {
	gitDir, commonDir, format string
}

// userRepoPaths asks git (hardened; rev-parse runs nothing) for the repository's git dir,
// common dir and object format.
func userRepoPaths(g gitRunner) (repoPaths, error) {
	out, err := g.line("rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "--show-object-format")
	if err != nil {
		return repoPaths{}, err
	}
	f := strings.Split(out, "\n")
	if len(f) != 3 {
		return repoPaths{}, fmt.Errorf("git rev-parse: unexpected answer %q", out)
	}
	return repoPaths{gitDir: f[0], commonDir: f[1], format: f[2]}, nil
}

// pinnedGit returns a runner over a user repository's objects, with workTree and index,
// whose GIT_DIR is a fresh folder exo writes: a config of exo's own, HEAD detached at commit,
// the repository's info/exclude as data. Nothing the agent can write is read as config — no
// .git/config, config.worktree or included file, no info/attributes — so no filter, diff or
// merge driver, fsmonitor, hook or submodule command can run, even one planted after exo
// looked (a config rewritten between two git commands). Submodules are never entered. The
// returned func removes the folder.
func pinnedGit(p repoPaths, commit, workTree, index string) (gitRunner, func(), error) {
	dir, err := os.MkdirTemp("", "exo-gitdir-")
	if err != nil {
		return gitRunner{}, nil, fmt.Errorf("pinned git dir: %w", err)
	}
	done := func() { os.RemoveAll(dir) }
	if err := writePinnedDir(dir, p, commit); err != nil {
		done()
		return gitRunner{}, nil, fmt.Errorf("pinned git dir: %w", err)
	}
	g := gitRunner{gitDir: dir, workTree: workTree, index: index, objects: filepath.Join(p.commonDir, "objects")}
	return g, done, nil
}

// writePinnedDir fills a pinned git dir.
func writePinnedDir(dir string, p repoPaths, commit string) error {
	cfg := "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tsymlinks = true\n"
	if p.format != "" && p.format != "sha1" {
		cfg = fmt.Sprintf("[core]\n\trepositoryformatversion = 1\n\tbare = false\n\tsymlinks = true\n[extensions]\n\tobjectformat = %s\n", p.format)
	}
	for _, d := range []string{"refs", "info"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "config"), []byte(cfg), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "HEAD"), []byte(commit+"\n"), 0o600); err != nil {
		return err
	}
	if ex, err := ReadBeneath(p.commonDir, "info/exclude", maxExcludeFile); err == nil {
		if err := os.WriteFile(filepath.Join(dir, "info", "exclude"), ex, 0o600); err != nil {
			return err
		}
	}
	// A split index keeps its shared part beside the repository's git dir: git looks for it in
	// GIT_DIR, so it is linked in (read as data only).
	shared, _ := filepath.Glob(filepath.Join(p.gitDir, "sharedindex.*"))
	for _, s := range shared {
		if err := os.Symlink(s, filepath.Join(dir, filepath.Base(s))); err != nil {
			return err
		}
	}
	return nil
}
