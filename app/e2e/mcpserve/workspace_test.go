package mcpserve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPServeNewSessionOnlyWhereAllowed: the calling agent may create sessions only in folders
// the user opened to it — exo mcp serve's directory and beneath it, --allow folders, existing
// sessions' workspaces — never elsewhere (a symbolic link does not smuggle a folder in), and not
// in the home folder just because a client started the server there.
func TestMCPServeNewSessionOnlyWhereAllowed(t *testing.T) {
	t.Parallel()
	home, ws, outside, allowed := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	os.MkdirAll(filepath.Join(allowed, "proj"), 0o755)
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	c := serveMCP(t, home, ws, "--allow", allowed)
	refused := func(args map[string]any) {
		t.Helper()
		out, isErr := c.call("new_session", args)
		if !isErr || !strings.Contains(out, "not one the user opened") && !strings.Contains(out, "absolute") {
			t.Fatalf("new_session %v was not refused: %s", args, out)
		}
	}
	refused(map[string]any{"workspace": outside})
	refused(map[string]any{"workspace": filepath.Join(ws, "link")})
	refused(map[string]any{"workspace": filepath.Join(ws, "sub", "..", "..")})
	refused(map[string]any{"workspace": "sub"})
	if out, isErr := c.call("run_turn", map[string]any{"prompt": "hi", "workspace": outside}); !isErr || !strings.Contains(out, "not one the user opened") {
		t.Fatalf("run_turn made a session outside: %s", out)
	}
	for _, dir := range []string{ws, filepath.Join(ws, "sub"), filepath.Join(allowed, "proj")} {
		var s struct{ Workspace string }
		c.mustJSON("new_session", map[string]any{"workspace": dir}, &s)
		if s.Workspace != dir {
			t.Fatalf("new_session in %s: %+v", dir, s)
		}
	}
	// A folder the user made a session in is open too.
	mustRunIn(t, home, outside, "new", "--name", "users")
	c.must("new_session", map[string]any{"workspace": outside})

	// Started in the home folder (as some clients do), serve's directory does not count.
	fakeHome := t.TempDir()
	h := serveMCPEnv(t, home, fakeHome, []string{"HOME=" + fakeHome})
	if out, isErr := h.call("new_session", nil); !isErr || !strings.Contains(out, "home folder") {
		t.Fatalf("new_session in the home folder: %v %s", isErr, out)
	}
}
