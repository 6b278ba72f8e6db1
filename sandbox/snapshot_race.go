package sandbox

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
)

// maxRaceRetries bounds how often staging is retried with racing paths left out.
const maxRaceRetries = 16

// racedReason is the SkippedFile reason of a path that changed while git staged it.
const racedReason = "changed while the snapshot read it (a folder swapped for a link, a file for a folder): the snapshot keeps its earlier state"

// unableRe finds the path git update-index gave up on.
var unableRe = regexp.MustCompile(`(?m)fatal: Unable to process path (.+)$`)

// stagePaths runs git update-index over paths. The workspace may be changing under an agent's
// hands between git status and update-index: a folder swapped for a link makes git refuse a path
// ("beyond a symbolic link"), a file turned into a folder or cut short while hashed too, and git
// then stages nothing. The path git names and the rest of its folder are then left out (the index
// keeps their earlier state; the next snapshot takes them) and staging is retried; the left-out
// paths are returned with those staged, and so are removed ones. A folder that is a link now, and not only for an instant
// of staging, is not left out: the files the index holds beneath it are removed from it and the
// link is staged (those paths are returned as removed as well), so that the snapshot is what the workspace holds (a rewind then puts the folder
// back in place of the link).
func (s *Snapshotter) stagePaths(paths []string) (kept, raced, removed []string, err error) {
	for try := 0; ; try++ {
		if len(paths) == 0 {
			return removed, raced, removed, nil
		}
		var buf bytes.Buffer
		for _, p := range paths {
			buf.WriteString(p)
			buf.WriteByte(0)
		}
		err := s.updateIndex(&buf, len(paths))
		if err == nil {
			return append(paths, removed...), raced, removed, nil
		}
		m := unableRe.FindStringSubmatch(err.Error())
		if m == nil || try >= maxRaceRetries {
			if len(raced) > 0 {
				err = fmt.Errorf("%w (after leaving out %d paths that changed while staged)", err, len(raced))
			}
			return nil, nil, nil, err
		}
		if link := s.linkAbove(m[1]); link != "" {
			// Not a race but a folder the agent replaced by a link: what the index holds
			// beneath it is gone from the workspace, and the link itself is staged.
			under := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return !strings.HasPrefix(p, link+"/") })
			if len(under) > 0 && s.forceRemove(under) == nil {
				removed = append(removed, under...)
				paths = slices.DeleteFunc(paths, func(p string) bool { return strings.HasPrefix(p, link+"/") })
				if !slices.Contains(paths, link) {
					paths = append(paths, link)
				}
				continue
			}
		}
		group := raceGroup(m[1])
		rest := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p == group || strings.HasPrefix(p, group+"/") })
		if len(rest) == len(paths) {
			return nil, nil, nil, err // not a path exo gave: nothing to leave out.
		}
		for _, p := range paths {
			if p == group || strings.HasPrefix(p, group+"/") {
				raced = append(raced, p)
			}
		}
		paths = rest
	}
}

// raceGroup is what is left out when git gave up on p: p's folder (its leading folders may be
// the ones being swapped), or p itself at the top of the workspace.
func raceGroup(p string) string {
	if dir := path.Dir(p); dir != "." {
		return dir
	}
	return p
}

// linkAbove returns the first leading folder of p that is a symbolic link in the workspace now
// (read without following links), or "".
func (s *Snapshotter) linkAbove(p string) string {
	d, err := OpenDir(s.git.workTree)
	if err != nil {
		return ""
	}
	defer d.Close()
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		q := strings.Join(parts[:i], "/")
		fi, err := d.Lstat(q)
		if err != nil {
			return ""
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return q
		}
		if !fi.IsDir() {
			return ""
		}
	}
	return ""
}

// forceRemove removes paths from the shadow index whatever the workspace holds there.
func (s *Snapshotter) forceRemove(paths []string) error {
	var buf bytes.Buffer
	for _, p := range paths {
		buf.WriteString(p)
		buf.WriteByte(0)
	}
	_, err := s.git.run(&buf, "update-index", "--force-remove", "-z", "--stdin")
	return err
}
