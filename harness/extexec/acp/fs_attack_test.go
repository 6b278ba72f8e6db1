package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness/internal/hostiletest"
)

// TestFSMethodsRaceSwappedFolder: while a folder of the workspace is swapped for a link to an
// outside folder in a loop (a background task of the agent), fs/write_text_file and
// fs/read_text_file on a file in it never write or read the outside file (they resolved the
// path, then followed whatever was there when they opened it).
func TestFSMethodsRaceSwappedFolder(t *testing.T) {
	f := newFixture(t)
	pr := &proc{a: &agent{h: f.h}, s: f.s}
	outside := t.TempDir()
	victim := filepath.Join(outside, "f")
	os.WriteFile(victim, []byte("OUTSIDE-SECRET"), 0o600)
	swaps := hostiletest.SwapLoop(t, f.ws, "d", outside)
	n, ok := 0, 0
	for start := time.Now(); hostiletest.Keep(start, n, ok); n++ {
		if pr.write("d/f", "inside") == nil {
			ok++
		}
		if text, _ := pr.read("d/f", 0, 0); strings.Contains(text, "OUTSIDE") {
			t.Fatalf("round %d (after %d swaps) read the outside file", n, swaps.Load())
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "OUTSIDE-SECRET" {
		t.Fatalf("after %d rounds and %d swaps the outside file is %q", n, swaps.Load(), b)
	}
	if ok == 0 {
		t.Fatalf("no write succeeded in %d rounds: the test proves nothing", n)
	}
	t.Logf("%d rounds against %d swaps held", n, swaps.Load())
}

// TestFSReadSpecialFiles: fs/read_text_file of a named pipe, socket, device or link to
// /dev/zero answers at once with an error, and a file over 16 MiB is refused, not read whole.
func TestFSReadSpecialFiles(t *testing.T) {
	f := newFixture(t)
	pr := &proc{a: &agent{h: f.h}, s: f.s}
	for _, kind := range hostiletest.Kinds {
		if !hostiletest.Plant(t, filepath.Join(f.ws, "p"), kind) {
			continue
		}
		hostiletest.Within(t, "fs/read_text_file of "+string(kind), func() {
			if _, err := pr.read("p", 0, 0); err == nil {
				t.Errorf("%s read", kind)
			}
		})
	}
	big, _ := os.Create(filepath.Join(f.ws, "big"))
	big.Truncate(maxTextFile + 1)
	big.Close()
	if _, err := pr.read("big", 1, 1); err == nil {
		t.Error("a file over the bound was read")
	}
}
