package views

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"exo/themes"
)

// holdWords are the words random answers are made of: plain words, inline
// markup that pairs across words, and words that start blocks when a line
// starts with them.
var holdWords = []string{
	"the", "harness", "keeps", "every", "event", "log", "replay", "fork", "1986.", "2)", "42", "#", "-", "+",
	"*", "**bold", "words**", "`code", "span`", "_under", "score_", "[link", "text](http://x.y)", "<b>", "</b>",
	"~~gone~~", "snake_case", "a*b", "http://example.com/path", "&amp;", "\\*", ">", "|", "=", "!", "é", "日本語",
	"supercalifragilisticexpialidocious-and-then-some-more-words-joined-by-dashes",
}

// randomAnswer builds an answer of long paragraphs mixed with lines that
// turn a paragraph into something else when they arrive: setext underlines,
// table rows, fences, lists.
func randomAnswer(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		odd := []int{1000, 1000, 60, 12, 3}[r.IntN(5)] // one word in odd is a special one
		if b.Len() == 0 {
			odd = 1 << 30 // the first paragraph is plain, so that every answer holds lines
		}
		for range 100 + r.IntN(400) {
			var w string
			if r.IntN(odd) == 0 {
				w = holdWords[r.IntN(len(holdWords))]
			} else {
				w = fmt.Sprintf("w%d", r.IntN(1000))
			}
			b.WriteString(w + " ")
		}
		switch r.IntN(8) {
		case 0:
			b.WriteString("\n===\n\n")
		case 1:
			b.WriteString("\n|---|---|\n| 1 | 2 |\n\n")
		case 2:
			b.WriteString("\n```go\nx := 1\n```\n\n")
		case 3:
			b.WriteString("\nmore on a second line\n\n")
		case 4:
			b.WriteString("\n- an item\n- another\n\n")
		default:
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// TestHeldParagraphRendersAsTheWholeBlock streams random answers in random
// pieces and checks after every piece that the rendering with held lines is
// the rendering of the same text from scratch (where nothing is held), by
// glamour alone (no plain-prose shortcut).
func TestHeldParagraphRendersAsTheWholeBlock(t *testing.T) {
	t.Parallel()
	c := NewCommon(themes.Dark())
	seeds := uint64(3)
	if raceOn {
		seeds = 1
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 26))
		text := randomAnswer(r, 5000)
		w := []int{60, 37, 120}[seed%3]
		var streamed mdStream
		var m mdRenderers
		fresh := mdRenderers{glamourOnly: true}
		head := []string{"head"}
		held := 0
		for i := 0; i < len(text); {
			i = min(len(text), i+1+r.IntN(32))
			got := streamed.update(&m, c, head, text[:i], w, true)
			var one mdStream
			want := one.update(&fresh, c, head, text[:i], w, false)
			if !equalLines(got, want) {
				t.Fatalf("seed %d width %d after %d bytes: held rendering differs\n%s\n---\n%s\n--- text:\n%q",
					seed, w, i, strings.Join(got, "\n"), strings.Join(want, "\n"), text[:i])
			}
			if streamed.hold.at > streamed.hold.start {
				held++
			}
		}
		if held == 0 {
			t.Errorf("seed %d: nothing was ever held", seed)
		}
	}
}

// TestLongParagraphRendersOnlyItsTail: a 16k-character paragraph streamed
// one character at a time, with a frame every 100 characters, feeds glamour
// a bounded amount per frame instead of the whole paragraph.
func TestLongParagraphRendersOnlyItsTail(t *testing.T) {
	t.Parallel()
	c := NewCommon(themes.Dark())
	text := strings.Repeat("abcdefghi ", 1600)
	for _, w := range []int{58, 198} {
		var s mdStream
		var m mdRenderers
		frames := 0
		for i := 100; i <= len(text); i += 100 {
			s.update(&m, c, []string{"head"}, text[:i], w, true)
			frames++
		}
		perFrame := m.fed / frames
		if limit := (holdMinLines + holdKeepLines + 2) * w * 3; perFrame > limit {
			t.Errorf("width %d: %d bytes rendered per frame on average (limit %d): the whole paragraph is rendered again", w, perFrame, limit)
		}
		var one mdStream
		var fresh mdRenderers
		if got, want := s.lines, one.update(&fresh, c, []string{"head"}, text, w, false); !equalLines(got, want) {
			t.Errorf("width %d: final rendering differs from the whole paragraph's", w)
		}
	}
}

// TestWidthRemembersWhatItMeasures: the remembered width is the measured one, for styled, wide
// and long strings, the first time and the next, and after the memo has turned over.
func TestWidthRemembersWhatItMeasures(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"short", "\x1b[38;5;252mabcdefghi abcdefghi abcdefghi\x1b[m", "│ 日本語 and 🙂 and more text │",
		strings.Repeat("wide 語 ", 1000),
	} {
		for range 2 {
			if got, want := Width(s), ansi.StringWidth(s); got != want {
				t.Fatalf("Width(%.40q) = %d, want %d", s, got, want)
			}
		}
	}
	for i := range widthMemoSize*2 + 10 {
		s := fmt.Sprintf("line %d of a screen that keeps changing ────", i)
		if Width(s) != ansi.StringWidth(s) {
			t.Fatalf("line %d measured wrong", i)
		}
	}
}

// TestNextParagraphDoesNotRenderTheOneBefore: once a paragraph's first line
// has started after a blank line, the paragraph before it is kept, not
// rendered again with every piece of the new one (answers often put each
// paragraph on one long line), and the rendering is the whole text's.
func TestNextParagraphDoesNotRenderTheOneBefore(t *testing.T) {
	t.Parallel()
	c := NewCommon(themes.Dark())
	first := strings.Repeat("A first paragraph on one line, **with** markup. ", 40)
	text := first + "\n\n" + strings.Repeat("And a second one, streaming. ", 40)
	var s mdStream
	m := mdRenderers{glamourOnly: true}
	s.update(&m, c, nil, text[:len(first)+3], 80, true)
	before, pieces := m.fed, 0
	for i := len(first) + 4; i < len(text)+10; i += 10 {
		s.update(&m, c, nil, text[:min(i, len(text))], 80, true)
		pieces++
	}
	if perPiece, limit := (m.fed-before)/pieces, len(first)/2; perPiece > limit {
		t.Errorf("%d bytes rendered per piece of the second paragraph: the first (%d bytes) is rendered again", perPiece, len(first))
	}
	var one mdStream
	if got, want := s.lines, one.update(&mdRenderers{glamourOnly: true}, c, nil, text, 80, false); !equalLines(got, want) {
		t.Errorf("streamed rendering differs from the whole text's:\n%s\n---\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
