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

// TestReadFileInFork reads in a fork, whose working copy exo keeps under its home: the copy's
// own file is read, while a link to the secret key and ".." to another fork's copy are refused.
func TestReadFileInFork(t *testing.T) {
	ws := t.TempDir()
	h, err := harness.Open(filepath.Join(t.TempDir(), "home"), harness.Options{SandboxHelper: []string{os.Args[0], sandbox.HelperCommand}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("FORK-OWN-5e1b\n"), 0o644)
	s, err := h.NewSession(harness.NewSessionOptions{Name: "t", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	f, err := h.Fork(s.ID, 0, harness.ForkOptions{Name: "f"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := h.Fork(s.ID, 0, harness.ForkOptions{Name: "o"})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(other.Workspace, "a.txt"), []byte("OTHER-COPY-77d2"), 0o644)
	os.Symlink(filepath.Join(h.Home(), "secret.key"), filepath.Join(f.Workspace, "key"))
	tc := toolCtx{x: New(h, Options{}), session: f.ID, branch: f.Branch, ws: f.Workspace}
	read := func(path string) toolOutput {
		return runReadFile(context.Background(), tc, json.RawMessage(`{"path":"`+path+`"}`))
	}
	if out := read("a.txt"); out.isError || !strings.Contains(out.text, "FORK-OWN-5e1b") {
		t.Fatalf("read_file a.txt in the fork: %s", out.text)
	}
	for _, p := range []string{"key", "../" + filepath.Base(other.Workspace) + "/a.txt", filepath.Join(other.Workspace, "a.txt"), filepath.Join(h.Home(), "exo.db")} {
		if out := read(p); !out.isError || strings.Contains(out.text, "OTHER-COPY") {
			t.Errorf("read_file %s in the fork: %s", p, out.text)
		}
	}
}
