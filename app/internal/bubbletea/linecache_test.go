package tea

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// This file tests exo's patch (see PATCH.md): drawing only the changed lines
// must write the same bytes to the terminal as upstream's whole-frame draw.

// twinRenderers drives a patched renderer and one forced onto upstream's path
// with the same frames and fails the test when what they write or hold differs.
type twinRenderers struct {
	t                *testing.T
	fast, full       *cursedRenderer
	outFast, outFull bytes.Buffer
}

func newTwinRenderers(t *testing.T, w, h int) *twinRenderers {
	tw := &twinRenderers{t: t}
	env := []string{"TERM=xterm-256color"}
	tw.fast = newCursedRenderer(&tw.outFast, env, w, h)
	tw.full = newCursedRenderer(&tw.outFull, env, w, h)
	tw.full.lines.off = true
	tw.fast.start()
	tw.full.start()
	return tw
}

func (tw *twinRenderers) frame(step int, v View) {
	tw.t.Helper()
	tw.outFast.Reset()
	tw.outFull.Reset()
	for _, r := range []*cursedRenderer{tw.fast, tw.full} {
		r.render(v)
		if err := r.flush(false); err != nil {
			tw.t.Fatal(err)
		}
	}
	if !bytes.Equal(tw.outFast.Bytes(), tw.outFull.Bytes()) {
		tw.t.Fatalf("step %d: line by line wrote %q, whole frame %q (frame %q)", step, tw.outFast.String(), tw.outFull.String(), v.Content)
	}
	for y := range tw.full.cellbuf.Height() {
		a, b := tw.fast.cellbuf.Line(y), tw.full.cellbuf.Line(y)
		if a.String() != b.String() || len(a) != len(b) {
			tw.t.Fatalf("step %d: row %d differs: line by line %q, whole frame %q (frame %q)", step, y, a.String(), b.String(), v.Content)
		}
		for x := range a {
			if !a[x].Equal(&b[x]) {
				tw.t.Fatalf("step %d: cell %d,%d differs: line by line %+v, whole frame %+v (frame %q)", step, x, y, a[x], b[x], v.Content)
			}
		}
	}
}

func (tw *twinRenderers) resize(w, h int) {
	tw.fast.resize(w, h)
	tw.full.resize(w, h)
}

// Pieces of lines: plain and styled text, wide and combining graphemes, and
// things that are not self-contained (links, open styles, controls, a
// zero-width grapheme first, bytes that are not UTF-8, C1 controls).
var (
	plainPieces = []string{
		"hello", "│", "╭──╮", " ", "   ", "日本語", "👨‍👩‍👧", "e\u0301", "abc def",
		"\x1b[1mbold\x1b[m", "\x1b[38;5;196mred\x1b[0m", "\x1b[1;4mx\x1b[m", "\x1b[7m \x1b[m",
		"\x1b[38;2;1;2;3mrgb\x1b[m", "\x1b[48;5;4m  \x1b[m",
	}
	hostilePieces = []string{
		"\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\", "\x1b[31mopen", "\t", "\u0301", "\xff", "\xc2\x9b31m",
		"\x1b[2J", "\x1b7", "\r", "\x1b[", "\x1b", "a\x1b[31m\u0301\x1b[m", "\x7f", "\x1b[31m",
	}
)

// lineSeeds is how many random streams TestLineByLineWritesWhatTheWholeFrameWrites
// draws (go test -run LineByLine -args -lines.seeds=1000 for a longer run).
var lineSeeds = flag.Int("lines.seeds", 24, "random frame streams to compare")

func randomLine(rng *rand.Rand, w int, hostile bool) string {
	var b strings.Builder
	for n := rng.IntN(6); n >= 0; n-- {
		if hostile && rng.IntN(8) == 0 {
			b.WriteString(hostilePieces[rng.IntN(len(hostilePieces))])
		} else {
			b.WriteString(plainPieces[rng.IntN(len(plainPieces))])
		}
	}
	if rng.IntN(4) == 0 { // a long line, cut at the edge
		b.WriteString(strings.Repeat("x", w))
	}
	return b.String()
}

// TestLineByLineWritesWhatTheWholeFrameWrites streams random frames: mostly
// one or two rows changing, as an answer streams, with scrolls, rows equal to
// other rows (the renderer's scroll detection), hostile lines, short and long
// frames, "\r\n" newlines, resizes and leaving the alternate screen.
func TestLineByLineWritesWhatTheWholeFrameWrites(t *testing.T) {
	t.Parallel()
	for seed := range uint64(*lineSeeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 26))
			w, h := 20+rng.IntN(40), 5+rng.IntN(15)
			tw := newTwinRenderers(t, w, h)
			rows := make([]string, h)
			for i := range rows {
				rows[i] = randomLine(rng, w, false)
			}
			hostile := seed%4 == 0
			for step := range 150 {
				switch k := rng.IntN(20); {
				case k < 10: // the streaming line grows
					i := rng.IntN(len(rows))
					rows[i] += plainPieces[rng.IntN(len(plainPieces))]
				case k < 12: // a scroll
					copy(rows, rows[1:])
					rows[len(rows)-1] = randomLine(rng, w, hostile)
				case k < 13: // a scroll down
					copy(rows[1:], rows)
					rows[0] = randomLine(rng, w, hostile)
				case k < 15: // a row becomes another row
					rows[rng.IntN(len(rows))] = rows[rng.IntN(len(rows))]
				case k < 17:
					rows[rng.IntN(len(rows))] = randomLine(rng, w, hostile)
				case k < 18:
					rows[rng.IntN(len(rows))] = ""
				case k == 18 && rng.IntN(4) == 0:
					w, h = 20+rng.IntN(40), 5+rng.IntN(15)
					tw.resize(w, h)
					rows = append(rows, make([]string, h)...)[:h]
				}
				content := strings.Join(rows, "\n")
				switch rng.IntN(12) {
				case 0:
					content = strings.Join(rows[:rng.IntN(len(rows))], "\n") // a short frame
				case 1:
					content += "\nbelow\nthe bottom"
				case 2:
					content = strings.Join(rows, "\r\n")
				}
				v := NewView(content)
				v.AltScreen = rng.IntN(40) != 0
				tw.frame(step, v)
			}
		})
	}
}

// TestStreamingFramesDrawOnlyTheirLine: frames where one line grows take the
// line-by-line path after the first, so the test above compares something.
func TestStreamingFramesDrawOnlyTheirLine(t *testing.T) {
	t.Parallel()
	tw := newTwinRenderers(t, 60, 20)
	rows := make([]string, 20)
	for i := range rows {
		rows[i] = fmt.Sprintf("\x1b[38;5;%dm│\x1b[m row %d \x1b[1m%s\x1b[m", i, i, strings.Repeat("·", i))
	}
	for step := range 50 {
		rows[18] += "a"
		v := NewView(strings.Join(rows, "\n"))
		v.AltScreen = true
		tw.frame(step, v)
	}
	// The first frame enters the alternate screen and the second settles the
	// renderer's screen model (see lineCache.settled).
	if tw.fast.lines.fastFrames != 47 || tw.fast.lines.fullFrames != 3 {
		t.Fatalf("line by line %d, whole %d frames; want 47 and 3", tw.fast.lines.fastFrames, tw.fast.lines.fullFrames)
	}
	if n := tw.fast.cellbuf.TouchedLines(); n != 20 {
		t.Fatalf("after a render every row is reset, got %d", n)
	}
}

func TestSelfContained(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		line string
		want bool
	}{
		{"", true},
		{"plain │ text 日本", true},
		{"\x1b[1mbold\x1b[m", true},
		{"\x1b[1mbold\x1b[0m after", true},
		{"\x1b[1mbold", false},
		{"\x1b[1mbold\x1b[0;1m", false},
		{"\x1b]8;;u\x1b\\x", false},
		{"a\tb", false},
		{"a\rb", false},
		{"\u0301a", false},
		{"\x1b[m\u0301a", false},
		{"a\u0301", false},
		{"a\u0301\x1b[m", false},
		{"a\u0301b", true},
		{"👨\u200d", false},
		{"\xffa", false},
		{"\xc2\x9b", false},
		{"\x1b[2J", false},
		{"\x1b[1", false},
		{"\x1b", false},
		{"a\x7f", false},
	} {
		if got := selfContained(c.line, ansi.GraphemeWidth); got != c.want {
			t.Errorf("selfContained(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}

// TestSkippedHashesStayTrue: a row's hashes are skipped only once it has kept
// its text for two frames. Rows 0-5 change from A-F to a-f and stay; then
// rows 3-8 become A-F. Had rows 0-5 been skipped one frame early, the
// renderer's scroll detection would still hold A-F for them and scroll rows
// 0-2 down onto rows 3-5 of the screen (a hunk of three, what it moves).
func TestSkippedHashesStayTrue(t *testing.T) {
	t.Parallel()
	tw := newTwinRenderers(t, 30, 12)
	rows := make([]string, 12)
	for i := range rows {
		rows[i] = fmt.Sprintf("row %d", i)
	}
	show := func(step int) {
		v := NewView(strings.Join(rows, "\n"))
		v.AltScreen = true
		tw.frame(step, v)
	}
	for step := range 4 { // enter the alternate screen, settle, fill the cache
		rows[11] = fmt.Sprint("frame ", step)
		show(step)
	}
	upper := []string{"AAAA", "BBBB", "CCCC", "DDDD", "EEEE", "FFFF"}
	copy(rows, upper)
	show(4)
	for i := range 6 {
		rows[i] = strings.ToLower(upper[i])
	}
	show(5)
	rows[11] = "streams"
	show(6)
	copy(rows[3:], upper)
	show(7)
	if tw.fast.lines.fastFrames < 5 {
		t.Fatalf("only %d frames line by line", tw.fast.lines.fastFrames)
	}
}
