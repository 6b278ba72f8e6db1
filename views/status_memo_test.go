package views

import (
	"testing"

	"exo/themes"
)

// TestStatusBarRedrawsWhatChanged: the bar keeps its last line while nothing it shows changed,
// and draws anew, as a new bar would, when anything did: the info, the width, the hints, the
// spinner while busy, the theme.
func TestStatusBarRedrawsWhatChanged(t *testing.T) {
	t.Parallel()
	c := NewCommon(themes.Dark())
	s := NewStatusBar(c)
	fresh := func() string {
		f := NewStatusBar(c)
		f.SetWidth(s.width)
		f.SetInfo(s.info)
		f.SetHints(s.hints)
		f.frame = s.frame
		return f.View()
	}
	check := func(what string) {
		t.Helper()
		if got, want := s.View(), fresh(); got != want {
			t.Fatalf("after %s: %q, a new bar %q", what, got, want)
		}
		if s.View() != s.last.line {
			t.Fatalf("after %s: the line drawn is not kept", what)
		}
	}
	s.SetWidth(120)
	s.SetInfo(sampleStatus())
	check("the first frame")
	info := sampleStatus()
	info.TokensOut++
	s.SetInfo(info)
	check("a token")
	s.Tick()
	check("a tick while idle")
	info.Busy = true
	s.SetInfo(info)
	check("busy")
	before := s.View()
	s.Tick()
	check("a tick while busy")
	if s.View() == before {
		t.Fatal("the spinner did not move")
	}
	s.SetWidth(60)
	check("a narrower bar")
	s.SetHints(NewTimeline(c).ShortHelp())
	check("hints")
	info.Message = "gone"
	s.SetInfo(info)
	check("a message")
	c.SetStyles(themes.Light())
	check("another theme")
}
