package sandbox

import (
	"bytes"
	"fmt"
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
// paths are returned with those staged.
func (s *Snapshotter) stagePaths(paths []string) (kept, raced []string, err error) {
	for try := 0; ; try++ {
		if len(paths) == 0 {
			return nil, raced, nil
		}
		var buf bytes.Buffer
		for _, p := range paths {
			buf.WriteString(p)
			buf.WriteByte(0)
		}
		err := s.updateIndex(&buf, len(paths))
		if err == nil {
			return paths, raced, nil
		}
		m := unableRe.FindStringSubmatch(err.Error())
		if m == nil || try >= maxRaceRetries {
			if len(raced) > 0 {
				err = fmt.Errorf("%w (after leaving out %d paths that changed while staged)", err, len(raced))
			}
			return nil, nil, err
		}
		group := raceGroup(m[1])
		rest := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p == group || strings.HasPrefix(p, group+"/") })
		if len(rest) == len(paths) {
			return nil, nil, err // not a path exo gave: nothing to leave out.
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
