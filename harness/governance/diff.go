package governance

import (
	"errors"
	"fmt"
	"io/fs"

	udiff "github.com/aymanbagabas/go-udiff"

	"exo/sandbox"
)

// UnifiedDiff returns a unified diff between two versions of a file, labelled with the two
// sessions; "" when they are equal.
func UnifiedDiff(path, labelA, a, labelB, b string) string {
	return udiff.Unified(labelA+"/"+path, labelB+"/"+path, a, b)
}

// DiffWorkspaces diffs path as it is in two sessions' workspaces; a missing file counts as empty.
// For sessions sharing one workspace the two versions are the same file: the harness must diff
// their snapshots instead.
func DiffWorkspaces(path, labelA, wsA, labelB, wsB string) (string, error) {
	c, err := CleanPath(path)
	if err != nil {
		return "", fmt.Errorf("diff %s: %w", path, err)
	}
	a, err := readOptional(wsA, c)
	if err != nil {
		return "", err
	}
	b, err := readOptional(wsB, c)
	if err != nil {
		return "", err
	}
	return UnifiedDiff(c, labelA, a, labelB, b), nil
}

// maxDiffFile bounds each side of a workspace diff.
const maxDiffFile = 8 << 20

// readOptional reads a workspace file, returning "" if it does not exist; a link leading out of
// the workspace is refused (the agent may have planted it).
func readOptional(ws, rel string) (string, error) {
	b, err := sandbox.ReadWorkspaceFile(ws, rel, maxDiffFile)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("diff: %w", err)
	}
	return string(b), nil
}
