package executor

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"exo/harness"
	"exo/sandbox"
)

// vetPath is the PathVet of a source's tool call (see PathVet).
func (tc toolCtx) vetPath(tool, path string, write bool, extra []string) error {
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(tc.ws, abs)
	}
	abs = filepath.Clean(abs)
	if d := tc.x.h.SecretPathDeniedIn(tc.ws, abs); d != "" {
		_, _ = tc.x.h.AppendOn(tc.session, tc.branch, harness.MustRecord(harness.TypeSecretDenied, harness.ActorHarness,
			harness.SecretDenied{Name: "exo-home", Tool: tool, Reason: d}))
		return errors.New("denied: " + d)
	}
	if !write {
		return nil
	}
	inside, err := sandbox.ResolveInWorkspace(tc.ws, path)
	if errors.Is(err, sandbox.ErrOutsideWorkspace) {
		if beneathAny(abs, extra) {
			return nil
		}
		return fmt.Errorf("%s is outside the workspace %s, and this tool would write it (the server's configuration can allow further folders with \"writable\")", path, tc.ws)
	}
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return tc.checkWrite(inside)
}

// beneathAny reports whether abs (symbolic links resolved as far as it exists) is one of dirs
// or beneath one.
func beneathAny(abs string, dirs []string) bool {
	real := resolveExisting(abs)
	for _, d := range dirs {
		d = resolveExisting(d)
		if rel, err := filepath.Rel(d, real); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// resolveExisting resolves the symbolic links of the longest existing leading part of p.
func resolveExisting(p string) string {
	p = filepath.Clean(p)
	var rest []string
	for cur := p; ; cur = filepath.Dir(cur) {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		if filepath.Dir(cur) == cur {
			return p
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
	}
}
