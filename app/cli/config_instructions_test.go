package cli

import (
	"bytes"
	"strings"
	"testing"

	"exo/harness/api"
)

// TestConfigListsInstructionFiles: exo config names the instruction files loaded here in order,
// with their scope, size and whether they are cut, and says where to put one when none is.
func TestConfigListsInstructionFiles(t *testing.T) {
	var out bytes.Buffer
	printInstructions(&env{stdout: &out}, []api.InstructionSource{{Path: "/home/u/.config/exo/AGENTS.md", Scope: "user", Bytes: 12},
		{Path: "/src/repo/AGENTS.md", Scope: "project", Bytes: 40000, Truncated: true}})
	want := "  /home/u/.config/exo/AGENTS.md (user, 12 bytes)\n  /src/repo/AGENTS.md (project, 40000 bytes, only the first 32 KiB)\n"
	if !strings.HasSuffix(out.String(), want) || !strings.Contains(out.String(), "instructions loaded here, in order") {
		t.Fatalf("listing:\n%s", out.String())
	}
	out.Reset()
	printInstructions(&env{stdout: &out}, nil)
	if !strings.Contains(out.String(), "instructions: none (AGENTS.md or CLAUDE.md here") {
		t.Fatalf("none:\n%s", out.String())
	}
}
