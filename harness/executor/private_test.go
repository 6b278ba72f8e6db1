package executor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
	"exo/sandbox"
)

// TestFileToolsLeaveExoHomeOut: with exo's home inside the workspace under a name the search
// tools do not skip by name (myexo), glob, grep and list_dir never show it, read_file, write_file
// and edit_file refuse it, and the rest of the workspace is searched as before.
func TestFileToolsLeaveExoHomeOut(t *testing.T) {
	ws := t.TempDir()
	home := filepath.Join(ws, "myexo")
	h, err := harness.Open(home, harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s, err := h.NewSession(harness.NewSessionOptions{Name: "t", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(home, "planted.txt"), []byte("needle-in-home"), 0o600)
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("needle-in-workspace"), 0o644)
	x := New(h, Options{})
	tc := toolCtx{x: x, session: s.ID, branch: s.Branch, ws: ws}
	call := func(run func(context.Context, toolCtx, json.RawMessage) toolOutput, args string) toolOutput {
		return run(context.Background(), tc, json.RawMessage(args))
	}
	for _, args := range []string{`{"pattern":"needle","include_ignored":true}`, `{"pattern":"needle"}`} {
		out := call(runGrep, args).text
		if strings.Contains(out, "myexo") || !strings.Contains(out, "a.txt") {
			t.Fatalf("grep %s: %s", args, out)
		}
	}
	if out := call(runGlob, `{"pattern":"**","include_ignored":true}`).text; strings.Contains(out, "myexo") || !strings.Contains(out, "a.txt") {
		t.Fatalf("glob: %s", out)
	}
	if out := call(runListDir, `{"path":"."}`).text; strings.Contains(out, "myexo") {
		t.Fatalf("list_dir: %s", out)
	}
	for _, key := range []string{"myexo/secret.key", "myexo/exo.db", "myexo/planted.txt"} {
		if out := call(runReadFile, `{"path":"`+key+`"}`); !out.isError {
			t.Fatalf("read_file %s: %s", key, out.text)
		}
	}
	if out := call(runWriteFile, `{"path":"myexo/planted.txt","content":"x"}`); !out.isError {
		t.Fatalf("write_file into exo's home: %s", out.text)
	}
	if out := call(runEditFile, `{"path":"myexo/planted.txt","old_string":"needle","new_string":"x"}`); !out.isError {
		t.Fatalf("edit_file in exo's home: %s", out.text)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "planted.txt")); string(b) != "needle-in-home" {
		t.Fatalf("exo's home was written: %q", b)
	}
}
