package governance

import (
	"fmt"
	"os"
	"path/filepath"

	udiff "github.com/aymanbagabas/go-udiff"
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
	a, err := readOptional(filepath.Join(wsA, filepath.FromSlash(c)))
	if err != nil {
		return "", err
	}
	b, err := readOptional(filepath.Join(wsB, filepath.FromSlash(c)))
	if err != nil {
		return "", err
	}
	return UnifiedDiff(c, labelA, a, labelB, b), nil
}

// readOptional reads a file, returning "" if it does not exist.
func readOptional(path string) (string, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("diff: %w", err)
	}
	return string(b), nil
}
