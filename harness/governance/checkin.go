package governance

import (
	"errors"
	"fmt"
	"path/filepath"

	"exo/sandbox"
)

// CheckIn checks a path a tool was given (relative to workspace, or absolute) after resolving
// symlinks: a link inside the scope that points at a boundary or out-of-scope file is judged by
// its target, and a link out of the workspace is an escape.
func CheckIn(s Scope, workspace, path string) error {
	if path == "" {
		return pathError(s, path, ErrEmpty)
	}
	resolved, err := sandbox.ResolveInWorkspace(workspace, path)
	if errors.Is(err, sandbox.ErrOutsideWorkspace) {
		return pathError(s, path, ErrEscape)
	}
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	ws, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	ws, err = filepath.Abs(ws)
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	rel, err := filepath.Rel(ws, resolved)
	if err != nil {
		return pathError(s, path, ErrEscape)
	}
	return CheckPath(s, filepath.ToSlash(rel))
}
