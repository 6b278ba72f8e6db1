package mcp

import (
	"os"
	"path/filepath"
	"testing"

	"exo/harness/internal/hostiletest"
)

// TestProjectConfigWriteReplacesLink: exo mcp add --scope project in a workspace whose
// .mcp.json (or the temporary name beside it) is a link to a file outside neither reads nor
// writes the outside file: add refuses the link, and a write replaces it.
func TestProjectConfigWriteReplacesLink(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	os.WriteFile(victim, []byte(`{"mcpServers":{"outside":{"command":"x"}}}`), 0o644)
	os.Symlink(victim, filepath.Join(ws, ProjectFile))
	os.Symlink(victim, filepath.Join(ws, ProjectFile+".tmp"))
	path, _ := PathFor(ScopeProject, ws)
	if err := Add(path, "s", ServerConfig{Command: "true"}); err == nil {
		t.Fatal("add read .mcp.json through a link")
	}
	f := &File{MCPServers: map[string]ServerConfig{"s": {Command: "true"}}}
	if err := f.Write(path); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != `{"mcpServers":{"outside":{"command":"x"}}}` {
		t.Fatalf("the outside file was written through the link: %q", b)
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf(".mcp.json is not a regular file now: %v %v", fi, err)
	}
}

// TestProjectConfigSpecialRefused: the loader refuses a project .mcp.json that is a named pipe,
// a socket, a device or a link (to /dev/zero) at once, and a user's file over 1 MiB.
func TestProjectConfigSpecialRefused(t *testing.T) {
	ws := t.TempDir()
	for _, kind := range hostiletest.Kinds {
		if !hostiletest.Plant(t, filepath.Join(ws, ProjectFile), kind) {
			continue
		}
		hostiletest.Within(t, "mcp.Load with .mcp.json "+string(kind), func() {
			if _, err := Load(ws, ""); err == nil {
				t.Errorf("%s loaded", kind)
			}
		})
	}
	os.Remove(filepath.Join(ws, ProjectFile))
	big := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(big, make([]byte, 2<<20), 0o644)
	if _, err := Load(ws, big); err == nil {
		t.Error("a 2 MiB user file was read")
	}
}
