package sealed

import (
	"path/filepath"
	"strings"
)

// copiesFolder is the folder of exo's home that holds the working copies it makes for forks
// (see workspaces.Fork): one folder per copy, named by a fresh id.
const copiesFolder = "workspaces"

// SecretPathDeniedIn is SecretPathDenied for a session whose workspace is ws. When ws is a
// working copy exo keeps in its home (a fork's), the paths inside that copy are the session's
// own files and are not refused for lying under the home; the rest of the home (the sealed
// secrets and their key, the log, other sessions' copies) still is, and so is a path that
// leaves the copy through a link, since links are resolved before the check.
func (sc *Secrets) SecretPathDeniedIn(ws, abs string) string {
	own := sc.ownCopy(ws)
	if own == "" {
		return sc.SecretPathDenied(abs)
	}
	real := resolved(abs)
	if !within(real, own) {
		return sc.SecretPathDenied(abs)
	}
	for i, dir := range sc.private {
		dir = resolved(dir)
		if !within(real, dir) || (own != dir && within(own, dir)) {
			continue // not under dir, or under it only as part of the session's own copy
		}
		return deniedWhy(i, dir)
	}
	return ""
}

// ownCopy returns ws with links resolved when it is one of the working copies exo keeps in its
// home (a folder directly in the home's copies folder), else "".
func (sc *Secrets) ownCopy(ws string) string {
	if ws == "" || sc.home == "" {
		return ""
	}
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return ""
	}
	if filepath.Dir(real) != filepath.Join(resolved(sc.home), copiesFolder) {
		return ""
	}
	return real
}

// resolved returns p with its links resolved: of its longest leading part that exists, when p
// itself does not (a file about to be written), so a link on the way is still seen.
func resolved(p string) string {
	rest := ""
	for dir := p; ; {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// within reports whether p is dir or lies beneath it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}
