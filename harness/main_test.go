package harness

import (
	"os"
	"testing"

	"exo/sandbox"
)

// TestMain lets the test binary act as the sandbox's confinement helper, as exo's main.go does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	if len(os.Args) > 2 && os.Args[1] == "__task-run" { // a detached task's process, as exo's is
		if err := RunDetached(os.Args[2]); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testHelper is the helper argv for harnesses opened in tests.
func testHelper() []string { return []string{os.Args[0], sandbox.HelperCommand} }
