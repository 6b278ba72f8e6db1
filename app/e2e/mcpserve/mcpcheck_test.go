package mcpserve

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPCheckFailsForAScriptTheSandboxHides: exo mcp ls --check exits 1 when a server fails,
// here a sandboxed stdio server whose script lies under /tmp, and says the sandbox hides /tmp,
// naming the script and the ways out; the same script in the workspace passes the check.
func TestMCPCheckFailsForAScriptTheSandboxHides(t *testing.T) {
	t.Parallel()
	entry := npmEntry(t, "server-everything")
	home, ws, cfg := t.TempDir(), t.TempDir(), t.TempDir()
	env := []string{"XDG_CONFIG_HOME=" + cfg}
	dir, err := os.MkdirTemp("/tmp", "exo-mcp-check-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	script := fmt.Sprintf("import %q;\n", entry)
	outside := filepath.Join(dir, "srv.mjs")
	for _, p := range []string{outside, filepath.Join(ws, "srv.mjs")} {
		if err := os.WriteFile(p, []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must := func(args ...string) string {
		t.Helper()
		out, errs, code := exoEnv(t, home, ws, env, args...)
		if code != 0 {
			t.Fatalf("exo %v: exit %d: %s", args, code, errs)
		}
		return out
	}
	must("mcp", "add", "--scope", "project", "tmpscript", "--", "node", outside, "stdio")
	must("trust", "--yes")
	if strings.Contains(must("doctor"), "mount namespaces: no") {
		t.Skip("no mount namespaces here: the sandbox gives a server no private /tmp")
	}
	out, errs, code := exoEnv(t, home, ws, env, "mcp", "ls", "--check")
	if code != 1 || !strings.Contains(errs, "MCP check failed: 1 of 1 servers not working (tmpscript failed)") {
		t.Fatalf("a failing check: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"the sandbox gives the server a private /tmp", "cannot reach " + outside,
		"move it into the workspace", `"writable" list in ` + filepath.Join(ws, ".mcp.json")} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if _, _, code := exoEnv(t, home, ws, env, "mcp", "ls", "--check", "--json"); code != 1 {
		t.Errorf("a failing check with --json: exit %d", code)
	}

	must("mcp", "rm", "tmpscript")
	must("mcp", "add", "--scope", "project", "inws", "--", "node", "srv.mjs", "stdio")
	must("trust", "--yes")
	if out := must("mcp", "ls", "--check"); !strings.Contains(out, "connected") {
		t.Fatalf("the script in the workspace:\n%s", out)
	}
}
