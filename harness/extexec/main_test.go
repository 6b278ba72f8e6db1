package extexec_test

import (
	"os"
	"testing"

	"exo/harness/extexec/pumptest"
)

func TestMain(m *testing.M) {
	pumptest.Main()
	os.Exit(m.Run())
}
