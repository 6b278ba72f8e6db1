package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness/internal/hostiletest"
)

// projectCommands makes a workspace with a command folder and an outside folder whose x.md
// holds a secret; it returns both.
func projectCommands(t *testing.T) (ws, outside string) {
	ws, outside = t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".exo", "commands"), 0o755)
	os.WriteFile(filepath.Join(ws, ".exo", "commands", "ok.md"), []byte("fine"), 0o644)
	os.WriteFile(filepath.Join(outside, "x.md"), []byte("OUTSIDE-SECRET"), 0o600)
	return ws, outside
}

// leaked reports a discovered command whose body came from outside.
func leaked(cmds []Command) string {
	for _, c := range cmds {
		if strings.Contains(c.Body+c.Description, "OUTSIDE") {
			return c.Name + ": " + c.Body
		}
	}
	return ""
}

// TestCommandsRaceSwappedFolder: a command subfolder swapped for a link to outside in a loop
// while exo discovers commands: no command ever holds the outside file.
func TestCommandsRaceSwappedFolder(t *testing.T) {
	ws, outside := projectCommands(t)
	dir := filepath.Join(ws, ".exo", "commands")
	os.MkdirAll(filepath.Join(dir, "ns"), 0o755)
	os.WriteFile(filepath.Join(dir, "ns", "x.md"), []byte("inside"), 0o644)
	swaps := hostiletest.SwapLoop(t, dir, "ns", outside)
	n, seen := 0, 0
	for start := time.Now(); hostiletest.Keep(start, n, seen); n++ {
		cmds := Discover(ws)
		if l := leaked(cmds); l != "" {
			t.Fatalf("round %d (after %d swaps) read the outside file: %s", n, swaps.Load(), l)
		}
		for _, c := range cmds {
			if c.Body == "inside" { // as ns:x or, while swapped, ns.alt:x
				seen++
			}
		}
	}
	if seen == 0 {
		t.Fatalf("the real command was never read in %d rounds: the test proves nothing", n)
	}
	t.Logf("%d rounds against %d swaps held", n, swaps.Load())
}

// TestCommandsPlantedLinksRefused: the commands folder, a subfolder or a file that is a link
// to outside is not followed.
func TestCommandsPlantedLinksRefused(t *testing.T) {
	ws, outside := projectCommands(t)
	dir := filepath.Join(ws, ".exo", "commands")
	os.Symlink(filepath.Join(outside, "x.md"), filepath.Join(dir, "file.md"))
	os.Symlink(outside, filepath.Join(dir, "sub"))
	os.MkdirAll(filepath.Join(ws, ".claude"), 0o755)
	os.Symlink(outside, filepath.Join(ws, ".claude", "commands"))
	if l := leaked(Discover(ws)); l != "" {
		t.Fatalf("a planted link was followed: %s", l)
	}
}

// TestCommandsSpecialFilesRefused: a command file that is a named pipe, socket, device or link
// to /dev/zero is skipped at once.
func TestCommandsSpecialFilesRefused(t *testing.T) {
	for _, kind := range hostiletest.Kinds {
		ws, _ := projectCommands(t)
		if !hostiletest.Plant(t, filepath.Join(ws, ".exo", "commands", "bad.md"), kind) {
			continue
		}
		hostiletest.Within(t, "discovering commands beside "+string(kind), func() {
			cmds := Discover(ws)
			if len(cmds) != 1 || cmds[0].Name != "ok" {
				t.Errorf("%s: %+v", kind, cmds)
			}
		})
	}
}
