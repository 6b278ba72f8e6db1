package cli

import (
	"fmt"

	"exo/harness/daemon/client"
)

// warnHomeInside prints, when workspace holds exo's home or its runtime folder (exo run in the
// home folder with exo's home at ~/.exo), what exo does about it; it returns the warning.
func (e *env) warnHomeInside(workspace string) string {
	w := homeInsideWarning(e, workspace)
	if w != "" {
		fmt.Fprintln(e.stderr, "exo: warning: "+w)
	}
	return w
}

// homeInsideWarning is the warning of warnHomeInside, "" when there is none.
func homeInsideWarning(e *env, workspace string) string {
	var dirs []string
	if home, err := e.homeDir(); err == nil {
		dirs = append(dirs, home)
	}
	if rt, err := client.RuntimeDir(); err == nil {
		dirs = append(dirs, rt)
	}
	if e.opts.Local.InsideWarning == nil {
		return ""
	}
	return e.opts.Local.InsideWarning(workspace, dirs)
}
