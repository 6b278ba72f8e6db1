package executor

import udiff "github.com/aymanbagabas/go-udiff"

// maxDiffBytes bounds a recorded diff.
const maxDiffBytes = 64 << 10

// unifiedDiff renders a file edit as a unified diff for the conversation pane; a diff cut to
// maxDiffBytes is redacted first, so the cut cannot leave part of a secret.
func unifiedDiff(tc toolCtx, name, old, new string) string {
	d := udiff.Unified("a/"+name, "b/"+name, old, new)
	if len(d) > maxDiffBytes {
		d = tc.x.h.RedactCut(d, maxDiffBytes) + "\n[diff cut]\n"
	}
	return d
}
