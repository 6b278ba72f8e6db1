// Package exobuild builds exo for end-to-end tests the way README's build command does: the
// full binary (exo-full, the module's root package) and the thin exo a user types
// (app/thin/exo) side by side, so the tests drive the same pair users run. It is used by every
// end-to-end package (app/e2e and its crash, conventions and mcpserve packages), so it
// is not internal to app/e2e.
package exobuild

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Build builds exo-full and exo into dir and returns the thin exo's path.
func Build(dir string) (string, error) {
	for _, b := range []struct{ out, pkg string }{{"exo-full", "exo"}, {"exo", "exo/app/thin/exo"}} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, b.out), b.pkg)
		if b.out == "exo" {
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as README builds it
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("build %s: %v\n%s", b.out, err, out)
		}
	}
	return filepath.Join(dir, "exo"), nil
}
