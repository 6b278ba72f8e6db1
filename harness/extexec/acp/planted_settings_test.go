package acp

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestSettingsFilesDoNotRunCommands: claude-agent-acp loads Claude's settings files (the user's,
// the project's and the local ones) unless the client says otherwise: a repository's
// .claude/settings.json, or one the agent left in its own config folder, would run hook commands
// on every prompt that exo never records nor puts to its policy. exo asks the adapter to load
// none (_meta.claudeCode.options.settingSources: []); neither hook runs.
func TestSettingsFilesDoNotRunCommands(t *testing.T) {
	f := newFixture(t)
	bin := claudeACP(t)
	hook := func(name string) string {
		return `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo hooked >> ` + filepath.Join(f.ws, name) + `"}]}],
"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo hooked >> ` + filepath.Join(f.ws, name) + `"}]}]}}`
	}
	if err := os.MkdirAll(filepath.Join(f.ws, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.ws, ".claude", "settings.json"), []byte(hook("project-hook-ran.txt")), 0o644); err != nil {
		t.Fatal(err)
	}
	x := f.executor(t, Options{Command: []string{bin}})
	res, err := x.Prompt(context.Background(), f.s.ID, "say hello", "test")
	okResult(t, res, err)
	dirs := x.Session(f.s.ID).Dirs
	user := filepath.Join(dirs.Config, "claude")
	if err := os.MkdirAll(user, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "settings.json"), []byte(hook("user-hook-ran.txt")), 0o600); err != nil {
		t.Fatal(err)
	}
	x.Close()
	x = f.executor(t, Options{Command: []string{bin}})
	res, err = x.Prompt(context.Background(), f.s.ID, "say hello again", "test")
	okResult(t, res, err)
	for _, name := range []string{"project-hook-ran.txt", "user-hook-ran.txt"} {
		if _, err := os.Stat(filepath.Join(f.ws, name)); err == nil {
			t.Errorf("%s: a settings file's hook ran a command past exo", name)
		}
	}
}
