package executor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"exo/harness/internal/hostiletest"
)

// TestFileToolsSpecialFiles: the file tools and the project instructions meet a named pipe
// (nobody writing, or a writer that never writes: the audit's read_file blocked 12 minutes), a
// socket, a device node or a link to /dev/zero where a file was expected: each answers at once
// (an error for read_file, edit_file and write_file's diff; grep skips it; AGENTS.md is left
// out of the prompt), and nothing is written through it.
func TestFileToolsSpecialFiles(t *testing.T) {
	h, s, ws := setup(t, "demo.yaml")
	x := New(h, Options{})
	tc := toolCtx{x: x, session: s.ID, branch: s.Branch, ws: ws}
	call := func(run func(context.Context, toolCtx, json.RawMessage) toolOutput, args string) toolOutput {
		return run(context.Background(), tc, json.RawMessage(args))
	}
	for _, kind := range hostiletest.Kinds {
		for _, name := range []string{"AGENTS.md", "CLAUDE.md", "f"} {
			if !hostiletest.Plant(t, filepath.Join(ws, name), kind) {
				continue
			}
		}
		hostiletest.Within(t, "the file tools on "+string(kind), func() {
			if out := call(runReadFile, `{"path":"f"}`); !out.isError {
				t.Errorf("read_file of %s: %q", kind, out.text)
			}
			if out := call(runEditFile, `{"path":"f","old_string":"a","new_string":"b"}`); !out.isError {
				t.Errorf("edit_file of %s: %q", kind, out.text)
			}
			call(runGrep, `{"pattern":"x"}`)
			x.systemPrompt(s, x.rootInstructions(ws))
		})
		if fi, err := os.Lstat(filepath.Join(ws, "f")); err == nil && fi.Mode().IsRegular() {
			t.Errorf("%s was replaced by edit_file", kind)
		}
	}
}
