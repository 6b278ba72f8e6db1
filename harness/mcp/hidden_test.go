package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness"
)

// A confined stdio server whose script lies under /tmp cannot read it (the sandbox gives it a
// private /tmp): its failure says so, names the path and how to let the server reach it. The
// same script in the workspace, or its /tmp folder listed as writable, starts.
func TestServerScriptUnderTmpSaysTheSandboxHidesIt(t *testing.T) {
	entry := npmServer(t, "server-everything")
	dir, err := os.MkdirTemp("/tmp", "exo-mcp-script-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	script := fmt.Sprintf("import %q;\n", entry)
	outside := filepath.Join(dir, "srv.mjs")
	if err := os.WriteFile(outside, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, nil, "name: x\nturns:\n  - text: hi\n")
	if !r.h.Capabilities().MountNS {
		t.Skip("no mount namespaces here: the sandbox cannot give a server a private /tmp")
	}
	if err := os.WriteFile(filepath.Join(r.ws, "srv.mjs"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	(&File{MCPServers: map[string]ServerConfig{
		"under-tmp":    {Command: "node", Args: []string{outside, "stdio"}},
		"in-workspace": {Command: "node", Args: []string{"srv.mjs", "stdio"}},
		"writable":     {Command: "node", Args: []string{outside, "stdio"}, Writable: []string{dir}},
	}}).Write(filepath.Join(r.ws, ProjectFile))
	st, err := r.m.Probe(t.Context(), r.ws)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Status{}
	for _, s := range st {
		byName[s.Name] = s
	}
	bad := byName["under-tmp"]
	if bad.State != harness.MCPFailed {
		t.Fatalf("a script the sandbox hides: %+v", bad)
	}
	for _, want := range []string{"the sandbox gives the server a private /tmp", "cannot reach " + outside,
		"move it into the workspace", fmt.Sprintf(`add %q to the server's "writable" list`, dir), `"sandbox": "off"`} {
		if !strings.Contains(bad.Error, want) {
			t.Errorf("missing %q in: %s", want, bad.Error)
		}
	}
	for _, name := range []string{"in-workspace", "writable"} {
		if s := byName[name]; s.State != harness.MCPConnected || s.Tools == 0 || strings.Contains(s.Error, "private /tmp") {
			t.Errorf("%s: %+v", name, s)
		}
	}
}
