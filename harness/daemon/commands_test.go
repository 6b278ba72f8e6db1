package daemon

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCommandsOverTheAPI lists a workspace's custom slash commands through the socket, as the
// app now does (it read the workspace itself before): the project's command comes back with its
// description, and a command folder the agent replaced by a link to elsewhere is not followed.
func TestCommandsOverTheAPI(t *testing.T) {
	f := serve(t, 0)
	t.Setenv("HOME", t.TempDir())
	ws, elsewhere := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".exo", "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, ".exo", "commands", "deploy.md"), []byte("---\ndescription: ship it\n---\nDeploy $ARGUMENTS"), 0o644)
	os.WriteFile(filepath.Join(elsewhere, "stolen.md"), []byte("outside"), 0o644)
	os.MkdirAll(filepath.Join(ws, ".claude"), 0o755)
	os.Symlink(elsewhere, filepath.Join(ws, ".claude", "commands"))
	cmds, err := f.c.Commands(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name+":"+c.Description)
	}
	if !slices.Contains(names, "deploy:ship it") || slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "stolen") }) {
		t.Fatalf("commands over the API: %v", names)
	}
}
