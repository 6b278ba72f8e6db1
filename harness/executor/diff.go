package executor

import udiff "github.com/aymanbagabas/go-udiff"

// maxDiffBytes bounds a recorded diff.
const maxDiffBytes = 64 << 10

// unifiedDiff renders a file edit as a unified diff for the conversation pane.
func unifiedDiff(name, old, new string) string {
	d := udiff.Unified("a/"+name, "b/"+name, old, new)
	if len(d) > maxDiffBytes {
		d = d[:maxDiffBytes] + "\n[diff cut]\n"
	}
	return d
}
