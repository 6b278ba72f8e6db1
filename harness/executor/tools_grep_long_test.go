package executor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGrepFindsMatchesInHugeLines searches lines of 2 MB and more (a minified bundle, a
// generated file), where the tool used to answer "no matches": a match at the end of such a
// line, one straddling two of its windows, the lines after it, and a long line that does not
// match. The answer shows the line's head and where the match is, never the whole line.
func TestGrepFindsMatchesInHugeLines(t *testing.T) {
	h, s, ws := setup(t, "demo.yaml")
	x := New(h, Options{})
	tc := toolCtx{x: x, session: s.ID, branch: s.Branch, ws: ws}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("end.txt", strings.Repeat("x", 2_000_000)+"NEEDLE\n")
	write("noeol.txt", strings.Repeat("y", 3_000_000)+"NEEDLE")
	straddle := grepWindow + grepOverlap - 3 // the match's first bytes end one window
	write("straddle.txt", strings.Repeat("z", straddle)+"NEEDLE"+strings.Repeat("z", 5_000_000)+"\nshort NEEDLE line\n")
	write("nomatch.txt", strings.Repeat("w", 4_000_000)+"\nNEEDLE after a long line\n")
	grep := func(args string) string {
		out := runGrep(context.Background(), tc, json.RawMessage(args))
		if out.isError {
			t.Fatalf("%s: %s", args, out.text)
		}
		return out.text
	}
	for _, c := range []struct{ file, want string }{
		{"end.txt", "end.txt:1: xxx"},
		{"noeol.txt", "noeol.txt:1: yyy"},
		{"straddle.txt", "straddle.txt:1: zzz"},
		{"straddle.txt", "straddle.txt:2: short NEEDLE line"},
		{"nomatch.txt", "nomatch.txt:2: NEEDLE after a long line"},
	} {
		out := grep(`{"pattern":"NEEDLE","path":"` + c.file + `"}`)
		if !strings.Contains(out, c.want) {
			t.Errorf("grep in %s: want %q in %.400q", c.file, c.want, out)
		}
		if len(out) > 2000 {
			t.Errorf("grep in %s answered %d bytes: the huge line was not cut", c.file, len(out))
		}
	}
	if out := grep(`{"pattern":"NEEDLE","path":"end.txt"}`); !strings.Contains(out, "the match is at byte 2000000") {
		t.Errorf("the match's place is not given: %.400q", out)
	}
	if out := grep(`{"pattern":"NEEDLE","path":"straddle.txt"}`); !strings.Contains(out, "at byte "+strconv.Itoa(straddle)) {
		t.Errorf("the match across two windows: %.400q", out)
	}
	if out := grep(`{"pattern":"NEEDLE","path":"nomatch.txt"}`); strings.Contains(out, "nomatch.txt:1:") {
		t.Errorf("a long line without the pattern reported: %.400q", out)
	}
	all := grep(`{"pattern":"NEEDLE"}`)
	for _, f := range []string{"end.txt:1:", "noeol.txt:1:", "straddle.txt:1:", "straddle.txt:2:", "nomatch.txt:2:"} {
		if !strings.Contains(all, f) {
			t.Errorf("grep over the workspace misses %s: %.600q", f, all)
		}
	}
}
