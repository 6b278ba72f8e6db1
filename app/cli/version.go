package cli

import (
	"fmt"
	"runtime/debug"

	"exo/harness/daemon/client"
)

// version describes this build for --version: the tag a packager gave it, the source revision
// it was built from, and the build id the daemon and its clients compare.
func version(tag string) string {
	rev, modified := "unknown revision", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value[:min(12, len(s.Value))]
			case "vcs.modified":
				if s.Value == "true" {
					modified = "+changes"
				}
			}
		}
	}
	if tag == "" {
		tag = "dev"
	}
	return fmt.Sprintf("%s (%s%s, build %.12s, protocol %d)", tag, rev, modified, client.BuildID(), client.Protocol)
}
