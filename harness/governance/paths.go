package governance

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Path errors; a *ScopeError wraps one of them or ErrOutOfScope / ErrBoundary.
var (
	ErrAbsolute = errors.New("absolute path")
	ErrEscape   = errors.New("path escapes the workspace")
	ErrEmpty    = errors.New("empty path")
)

// CleanPath normalises a workspace-relative path: slash-separated, cleaned, not absolute and not
// escaping the workspace with "..". Symlinks are the sandbox's business; this is lexical only.
func CleanPath(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", ErrEmpty
	}
	p = filepath.ToSlash(p)
	if path.IsAbs(p) || filepath.IsAbs(p) {
		return "", ErrAbsolute
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", ErrEscape
	}
	if c == "." {
		return "", fmt.Errorf("%q names the workspace root, not a file: %w", p, ErrEmpty)
	}
	return c, nil
}

// RelPath turns a path a tool was given (absolute inside workspace, or relative to it) into a
// clean workspace-relative path.
func RelPath(workspace, p string) (string, error) {
	if workspace != "" && filepath.IsAbs(p) {
		rel, err := filepath.Rel(filepath.Clean(workspace), filepath.Clean(p))
		if err != nil {
			return "", fmt.Errorf("path %s: %w", p, ErrEscape)
		}
		p = rel
	}
	return CleanPath(p)
}
