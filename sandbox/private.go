package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// privateRels returns, for each absolute path in private that lies inside root (links resolved
// in both), its slash path relative to root. These are exo's own folders when a workspace holds
// them (exo's home inside a home-folder workspace, the runtime folder in /tmp): snapshots,
// restores, clones and the watcher leave them out.
func privateRels(root string, private []string) []string {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = filepath.Clean(root)
	}
	var out []string
	for _, p := range private {
		if p == "" {
			continue
		}
		rp, err := filepath.EvalSymlinks(p)
		if err != nil {
			rp = filepath.Clean(p)
		}
		for _, r := range []string{real, filepath.Clean(root)} {
			if rel, err := filepath.Rel(r, rp); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel) {
				out = append(out, filepath.ToSlash(rel))
				break
			}
		}
	}
	return out
}

// PrivateRels is privateRels for callers outside the package (the file tools).
func PrivateRels(root string, private []string) []string { return privateRels(root, private) }

// IsPrivate reports whether the relative path rel is one of rels (from PrivateRels) or lies
// beneath one.
func IsPrivate(rel string, rels []string) bool {
	rel = strings.TrimPrefix(filepath.ToSlash(filepath.Clean(rel)), "./")
	for _, p := range rels {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

// pathspec returns the pathspec of a status over the whole workspace without its private
// folders (none when there are none).
func (s *Snapshotter) pathspec() []string {
	if len(s.private) == 0 {
		return nil
	}
	out := []string{"--", "."}
	for _, p := range s.private {
		out = append(out, ":(top,literal,exclude)"+p)
	}
	return out
}

// dropPrivate removes private folders from the shadow index (snapshots taken before they were
// left out, or before exo's home moved into the workspace, hold them).
func (s *Snapshotter) dropPrivate() error {
	if len(s.private) == 0 {
		return nil
	}
	if _, err := os.Stat(s.git.index); err != nil {
		return nil
	}
	args := []string{"rm", "--cached", "-r", "-q", "--ignore-unmatch", "--"}
	for _, p := range s.private {
		args = append(args, ":(top,literal)"+p)
	}
	_, err := s.git.run(nil, args...)
	return err
}
