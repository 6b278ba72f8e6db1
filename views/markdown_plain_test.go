package views

import (
	"flag"
	"math/rand/v2"
	"strings"
	"testing"

	"exo/themes"
)

var plainSeeds = flag.Int("plain.seeds", 400, "random texts TestPlainProseRendersAsGlamour tries per theme")

// randomProse returns text that is mostly plain prose, with now and then what
// the shortcut must leave to glamour: markup, a link, a list's start, two
// spaces, a long word, a tab, a wide character.
func randomProse(r *rand.Rand) string {
	words := []string{"a", "I", "is", "the", "word", "streams", "abcdefghi", "Exo", "it's", "\"quoted\"",
		"(aside)", "end.", "etc.", "so,", "why?", "yes!", "x;", "note:", "42", "314", "2nd",
		"aside)", "e.g.", "3.14", "x(y", "a!b", "a:b", "(", "!", "yes!", "note:", "www.example.com", "http://x.y", "*em*", "_u_", "`code`", "[link](u)", "<b>", "a@b.c", "~s~",
		"&amp;", "\\*", "#", "-", "1.", "2)", ">", "|", ":smile:", "日本", "e\u0301", "tab\there",
		strings.Repeat("long", 12), "", " "}
	var b strings.Builder
	n := 1 + r.IntN(60)
	plain := r.IntN(3) > 0 // two texts in three draw from the plain words only
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		k := len(words)
		if plain {
			k = 21
		}
		b.WriteString(words[r.IntN(k)])
	}
	if r.IntN(4) == 0 {
		b.WriteByte(' ') // as a frame often ends
	}
	return b.String()
}

// TestPlainProseRendersAsGlamour: wherever the shortcut serves, its lines are
// glamour's, byte for byte, in every theme, at widths from 1 to 200, for
// random texts that are prose or nearly so; and it does serve typical prose.
func TestPlainProseRendersAsGlamour(t *testing.T) {
	t.Parallel()
	for _, st := range []*themes.Styles{themes.Dark(), themes.Light(), themes.HighContrast(), themes.NoColor()} {
		c := NewCommon(st)
		var m mdRenderers
		served := 0
		r := rand.New(rand.NewPCG(1, uint64(len(st.Name))))
		for range *plainSeeds {
			src := randomProse(r)
			w := 1 + r.IntN(200)
			if !plainProse(src, w) || !m.plainOf(c, w).ok {
				continue
			}
			served++
			if got, want := m.render(c, w, src), m.glamour(c, w, src); !equalLines(got, want) {
				t.Fatalf("%s, width %d, %q:\nshortcut %q\nglamour  %q", st.Name, w, src, got, want)
			}
		}
		if served < *plainSeeds/4 {
			t.Errorf("%s: the shortcut served %d of %d texts", st.Name, served, *plainSeeds)
		}
	}
}

// TestPlainProseRefusesWhatGlamourChanges: text glamour would render as more
// than wrapped words is not plain prose.
func TestPlainProseRefusesWhatGlamourChanges(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"", " lead", "trail  ", "two  spaces", "1. a list", "2) a list", "# heading", "- item", "> quote",
		"see www.example.com now", "at http://x.y", "mail a@b.c", "an *emphasis*", "a `code` span",
		"a [link](u)", "an <b>html</b>", "an &amp; entity", "an \\* escape", "a :smile: emoji",
		"a ~strike~", "a _u_", "an (aside)", "so yes!", "a:b c", "x (y", "tab\there", "line\nbreak", "wide 日本", "e\u0301", "3 is a digit first",
		"a " + strings.Repeat("x", 41),
	} {
		if plainProse(src, 40) {
			t.Errorf("%q counted as plain prose", src)
		}
	}
	for _, src := range []string{"It is plain, (really) \"so\"; why? yes! 'this' note: etc. end.", "a", "x " + strings.Repeat("y", 40), "a trailing space "} {
		if !plainProse(src, 40) {
			t.Errorf("%q not counted as plain prose", src)
		}
	}
}

// TestPlainStyleFollowsTheTheme: a theme change drops the learned styles.
func TestPlainStyleFollowsTheTheme(t *testing.T) {
	t.Parallel()
	c := NewCommon(themes.Dark())
	var m mdRenderers
	dark := m.render(c, 60, "plain words")
	c.SetStyles(themes.Light())
	light := m.render(c, 60, "plain words")
	var fresh mdRenderers
	if want := fresh.glamour(c, 60, "plain words"); !equalLines(light, want) || equalLines(dark, light) {
		t.Fatalf("after a theme change: %q, want %q (dark was %q)", light, want, dark)
	}
}

// TestPlainAnswerStreamsWithoutGlamour: the rig's answer (one paragraph of
// plain words) streamed in random pieces and drawn after each is rendered by
// the shortcut: glamour renders only the shortcut's two probes.
func TestPlainAnswerStreamsWithoutGlamour(t *testing.T) {
	t.Parallel()
	c := NewCommon(themes.Dark())
	text := plainAnswer(40_000)
	r := rand.New(rand.NewPCG(26, 1))
	var s mdStream
	var m mdRenderers
	for i := 0; i < len(text); {
		i = min(len(text), i+1+r.IntN(3000))
		s.update(&m, c, []string{"head"}, text[:i], 110, true)
	}
	if m.glamoured != 2 {
		t.Errorf("glamour rendered %d times, want 2 (the shortcut's probes)", m.glamoured)
	}
}
