package workspaces

import (
	"fmt"
	"path/filepath"
	"strings"

	"exo/sandbox"
)

// InsideWarning says, when workspace holds one of exo's own folders dirs (its home, its runtime
// folder), what exo does about it ("" when it holds none).
func InsideWarning(workspace string, dirs []string) string {
	rels := sandbox.PrivateRels(workspace, dirs)
	if len(rels) == 0 {
		return ""
	}
	for i, r := range rels {
		rels[i] = filepath.FromSlash(r)
	}
	what := "exo's own folder " + rels[0] + " is"
	if len(rels) > 1 {
		what = "exo's own folders " + strings.Join(rels, ", ") + " are"
	}
	return fmt.Sprintf("%s inside the workspace %s: exo leaves them out of snapshots, forks, the watcher and the file tools, and the sandbox hides them; a project folder of its own is the safer workspace",
		what, workspace)
}
