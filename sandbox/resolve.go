package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutsideWorkspace is returned for paths that lead outside the workspace.
var ErrOutsideWorkspace = errors.New("path is outside the workspace")

// maxLinks bounds symlink resolution, as the kernel does.
const maxLinks = 40

// ResolveInWorkspace turns path (absolute, or relative to workspace) into an absolute
// path with symlinks resolved and refuses it when it leads outside the workspace,
// whether by ".." or through a symlink (dangling ones included). Components that do
// not exist yet are kept as written, so the result can be created.
func ResolveInWorkspace(workspace, path string) (string, error) {
	ws, err := filepath.Abs(workspace)
	if err == nil {
		ws, err = filepath.EvalSymlinks(ws)
	}
	if err != nil {
		return "", fmt.Errorf("resolve workspace %s: %w", workspace, err)
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(ws, p)
	}
	p = filepath.Clean(p)
	if !within(ws, p) {
		return "", fmt.Errorf("resolve %s: %w", path, ErrOutsideWorkspace)
	}
	resolved, err := resolvePath(p, 0)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	if !within(ws, resolved) {
		return "", fmt.Errorf("resolve %s (-> %s): %w", path, resolved, ErrOutsideWorkspace)
	}
	return resolved, nil
}

// within reports whether p is dir or lies beneath it (both clean and absolute).
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// resolvePath resolves symlinks in the longest existing prefix of p and follows a
// dangling final link by hand.
func resolvePath(p string, depth int) (string, error) {
	if depth > maxLinks {
		return "", errors.New("too many levels of symbolic links")
	}
	rest, cur := "", p
	for {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(cur)
			if err != nil {
				return "", err
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			return resolvePath(filepath.Join(filepath.Clean(target), rest), depth+1)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		rest, cur = filepath.Join(filepath.Base(cur), rest), parent
	}
}

// ReadWorkspaceFile reads at most max bytes (all when max < 0) of path, relative to the
// workspace or absolute inside it. Links inside the workspace are resolved first (one leading
// out is refused); the resolved path is then opened beneath the workspace without following
// any link, so a link swapped in meanwhile makes the read fail instead of leading out.
func ReadWorkspaceFile(workspace, path string, max int64) ([]byte, error) {
	abs, err := ResolveInWorkspace(workspace, path)
	if err != nil {
		return nil, err
	}
	ws, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return nil, fmt.Errorf("resolve workspace %s: %w", workspace, err)
	}
	rel, err := filepath.Rel(ws, abs)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, ErrOutsideWorkspace)
	}
	d, err := OpenDir(ws)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadFileLimit(rel, max)
}
