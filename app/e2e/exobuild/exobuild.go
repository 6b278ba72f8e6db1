// Package exobuild builds exo for end-to-end tests the way README's build command does: the
// full binary (exo-full, the module's root package), the daemon's own binary (exo-daemon,
// app/daemon, stamped with exo-full's build id) and the thin exo a user types (app/thin/exo)
// side by side, so the tests drive the same binaries users run. It is used by every
// end-to-end package (app/e2e and its crash, conventions and mcpserve packages), so it
// is not internal to app/e2e.
package exobuild

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Tags are the build tags of README's builds of exo-full and exo-daemon: grpcnotrace leaves
// golang.org/x/net/trace out of gRPC, whose HTML pages would link template execution and with
// it every exported method of the program (README, "Binary size").
const Tags = "grpcnotrace"

// FullBuildCommand is README's build of exo-full, run in the module's root.
const FullBuildCommand = `go build -tags ` + Tags + ` -o exo-full .`

// DaemonBuildCommand is README's build of exo-daemon, run in the module's root after exo-full's:
// the -X stamp gives it exo-full's build id (harness/daemon/wire.FullBuild).
const DaemonBuildCommand = `go build -tags ` + Tags + ` -ldflags "-X exo/harness/daemon/wire.FullBuild=$(go tool buildid exo-full)" -o exo-daemon ./app/daemon`

// Build builds exo-full, exo-daemon and exo into dir and returns the thin exo's path.
func Build(dir string) (string, error) {
	full := filepath.Join(dir, "exo-full")
	if err := build(exec.Command("go", "build", "-tags", Tags, "-o", full, "exo")); err != nil {
		return "", fmt.Errorf("build exo-full: %w", err)
	}
	id, err := exec.Command("go", "tool", "buildid", full).Output()
	if err != nil {
		return "", fmt.Errorf("go tool buildid exo-full: %w", err)
	}
	stamp := "-X exo/harness/daemon/wire.FullBuild=" + strings.TrimSpace(string(id))
	if err := build(exec.Command("go", "build", "-tags", Tags, "-ldflags", stamp, "-o", filepath.Join(dir, "exo-daemon"), "exo/app/daemon")); err != nil {
		return "", fmt.Errorf("build exo-daemon: %w", err)
	}
	thin := exec.Command("go", "build", "-o", filepath.Join(dir, "exo"), "exo/app/thin/exo")
	thin.Env = append(os.Environ(), "CGO_ENABLED=0") // as README builds it
	if err := build(thin); err != nil {
		return "", fmt.Errorf("build exo: %w", err)
	}
	return filepath.Join(dir, "exo"), nil
}

// build runs a go build command, its output in the error.
func build(cmd *exec.Cmd) error {
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v\n%s", err, out)
	}
	return nil
}
