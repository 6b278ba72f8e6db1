package executor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// outsideMarker is the content of the file outside the workspace that attacks aim at.
const outsideMarker = "OUTSIDE-SECRET-7d1c"

// swapper exchanges ws/d (a real folder) and ws/d.alt (a link to outside) atomically in a loop
// until the test ends, as an agent process racing exo's file tools would.
func swapper(t *testing.T, ws, outside string) *atomic.Int64 {
	a, b := filepath.Join(ws, "d"), filepath.Join(ws, "d.alt")
	os.MkdirAll(a, 0o755)
	os.WriteFile(filepath.Join(a, "f"), []byte("inside\n"), 0o644)
	if err := os.Symlink(outside, b); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	var swaps atomic.Int64
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE) == nil {
				swaps.Add(1)
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	return &swaps
}

// TestFileToolsRaceSwappedFolder runs every file tool in a loop on d/… while another process
// keeps swapping d for a link to a folder outside: no tool ever writes, edits, reads, lists or
// greps the outside folder.
func TestFileToolsRaceSwappedFolder(t *testing.T) {
	h, s, ws := setup(t, "demo.yaml")
	x := New(h, Options{})
	tc := toolCtx{x: x, session: s.ID, branch: s.Branch, ws: ws}
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "outside-only.txt"), []byte(outsideMarker+"\n"), 0o644)
	swaps := swapper(t, ws, outside)
	call := func(run func(context.Context, toolCtx, json.RawMessage) toolOutput, args string) string {
		return run(context.Background(), tc, json.RawMessage(args)).text
	}
	deadline := time.Now().Add(time.Second)
	rounds := 0
	for ; time.Now().Before(deadline) || rounds < 100; rounds++ {
		call(runWriteFile, `{"path":"d/f","content":"inside\n"}`)
		call(runWriteFile, `{"path":"d/new/g","content":"x"}`)
		call(runEditFile, `{"path":"d/f","old_string":"inside","new_string":"inside"}`)
		if out := call(runReadFile, `{"path":"d/outside-only.txt"}`); strings.Contains(out, outsideMarker) {
			t.Fatalf("round %d: read_file read the outside file", rounds)
		}
		for _, out := range []string{
			call(runReadFile, `{"path":"d/f"}`),
			call(runGrep, `{"pattern":"SECRET","path":"d"}`),
			call(runGrep, `{"pattern":"SECRET"}`),
			call(runListDir, `{"path":"d"}`),
			call(runGlob, `{"pattern":"d/*"}`),
		} {
			if strings.Contains(out, outsideMarker) || strings.Contains(out, "outside-only") {
				t.Fatalf("round %d: a tool read the outside folder: %q", rounds, out)
			}
		}
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "outside-only.txt")); string(b) != outsideMarker+"\n" {
		t.Fatalf("after %d swaps the outside file is %q", swaps.Load(), b)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Fatalf("after %d swaps and %d rounds the outside folder has %d entries", swaps.Load(), rounds, len(ents))
	}
	t.Logf("%d rounds of 9 tool calls against %d swaps held", rounds, swaps.Load())
}

// TestInstructionsLinkNotFollowed plants AGENTS.md as a link to a file outside: its content
// never reaches the system prompt, while a link inside the workspace still works.
func TestInstructionsLinkNotFollowed(t *testing.T) {
	h, s, ws := setup(t, "demo.yaml")
	x := New(h, Options{})
	outside := filepath.Join(t.TempDir(), "key")
	os.WriteFile(outside, []byte(outsideMarker), 0o600)
	os.Symlink(outside, filepath.Join(ws, "AGENTS.md"))
	if p := x.systemPrompt(s, x.rootInstructions(ws)); strings.Contains(p, outsideMarker) {
		t.Fatal("a file outside the workspace reached the system prompt through AGENTS.md")
	}
	os.Remove(filepath.Join(ws, "AGENTS.md"))
	os.WriteFile(filepath.Join(ws, "docs.md"), []byte("use tabs"), 0o644)
	os.Symlink("docs.md", filepath.Join(ws, "AGENTS.md"))
	if p := x.systemPrompt(s, x.rootInstructions(ws)); !strings.Contains(p, "use tabs") {
		t.Fatal("AGENTS.md linked inside the workspace was not read")
	}
}

// TestReadFileHugeLineBounded reads a file made of one 256 MiB line: memory stays bounded,
// and the answer says how much was shown and how to read on.
func TestReadFileHugeLineBounded(t *testing.T) {
	h, s, ws := setup(t, "demo.yaml")
	x := New(h, Options{})
	tc := toolCtx{x: x, session: s.ID, branch: s.Branch, ws: ws}
	f, err := os.Create(filepath.Join(ws, "huge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat("abcdefgh", 1<<17)) // 1 MiB
	for range 256 {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	f.Write([]byte("\nsecond line\n"))
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out := runReadFile(context.Background(), tc, json.RawMessage(`{"path":"huge.txt"}`))
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Fatalf("reading one huge line allocated %d MiB", grew>>20)
	}
	if out.isError || !strings.Contains(out.text, "cut at byte 2000 of 268435469") || !strings.Contains(out.text, "tail -c +2001") || len(out.text) > 4000 {
		t.Fatalf("answer %d bytes: %.600s", len(out.text), out.text)
	}
	next := runReadFile(context.Background(), tc, json.RawMessage(`{"path":"huge.txt","offset":2}`))
	if !strings.Contains(next.text, "2\tsecond line") {
		t.Fatalf("offset past the huge line: %q", next.text)
	}
}
