package claude

import (
	"os"
	"testing"

	"exo/harness/extexec/pumptest"
	"exo/sandbox"
)

func TestMain(m *testing.M) {
	pumptest.Main()
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperCommand {
		os.Exit(sandbox.HelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}
