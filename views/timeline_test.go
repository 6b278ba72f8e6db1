package views

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/themes"
)

func newTestTimeline(n int) *Timeline {
	tl := NewTimeline(NewCommon(themes.Dark()))
	tl.SetSize(60, 12)
	tl.SetSource(sampleRows(n))
	tl.Focus()
	return tl
}

func TestTimelineKeysEmitRequests(t *testing.T) {
	tl := newTestTimeline(50)
	if r, _ := tl.Selected(); r.Seq != 50 {
		t.Fatalf("starts at seq %d, want the last", r.Seq)
	}
	_, cmd := tl.Update(press("k"))
	first := run(cmd).(TimelineSelectMsg)
	if first.Seq != 49 || first.Branch != "main" || first.Latest || !tl.IsCurrent(first) {
		t.Fatalf("k sent %#v", first)
	}
	cases := map[string]tea.Msg{
		"f":     ForkRequest{Seq: 49, Branch: "main"},
		"r":     RewindRequest{Seq: 49, Branch: "main"},
		"enter": ShowEvent{Seq: 49, Branch: "main"},
	}
	for k, want := range cases {
		_, cmd := tl.Update(press(k))
		if got := run(cmd); got != want {
			t.Errorf("%s sent %#v, want %#v", k, got, want)
		}
	}
	_, cmd = tl.Update(press("G"))
	if got := run(cmd).(TimelineSelectMsg); got.Seq != 50 || !got.Latest || !tl.IsCurrent(got) || tl.IsCurrent(first) {
		t.Errorf("G sent %#v", got)
	}
	if _, cmd = tl.Update(press("j")); cmd != nil {
		t.Error("moving past the end reported a change")
	}
}

func TestTimelineScrolling(t *testing.T) {
	tl := newTestTimeline(1000)
	tl.Update(press("g"))
	if r, _ := tl.Selected(); r.Seq != 1 {
		t.Fatalf("g selected %d", r.Seq)
	}
	tl.Update(press("pgdown"))
	if r, _ := tl.Selected(); r.Seq != 10 {
		t.Errorf("pgdown selected %d, want 10 (page of 9)", r.Seq)
	}
	tl.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if r, _ := tl.Selected(); r.Seq != 13 {
		t.Errorf("wheel selected %d, want 13", r.Seq)
	}
	view := ansi.Strip(tl.View())
	if !strings.Contains(view, "13 02:30:12") {
		t.Errorf("selected row not visible:\n%s", view)
	}
	checkSize(t, tl.View(), 60, 12)
}

func TestTimelineFilter(t *testing.T) {
	tl := newTestTimeline(70)
	tl.Update(press("/"))
	for _, r := range "tool.comp" {
		tl.Update(press(string(r)))
	}
	if !strings.Contains(ansi.Strip(tl.View()), "/tool.comp") {
		t.Fatalf("filter prompt not shown:\n%s", ansi.Strip(tl.View()))
	}
	_, cmd := tl.Update(press("enter"))
	if tl.Len() != 10 {
		t.Fatalf("filter kept %d rows, want 10", tl.Len())
	}
	if got := run(cmd).(TimelineSelectMsg); got.Seq != 69 || !got.Latest {
		t.Errorf("applying the filter sent %#v", got)
	}
	for i := 0; i < tl.Len(); i++ {
		if tl.row(i).Type != "tool.completed" {
			t.Fatalf("row %d is %s", i, tl.row(i).Type)
		}
	}
	checkSize(t, tl.View(), 60, 12)
	tl.Update(press("esc"))
	if tl.Len() != 70 {
		t.Errorf("esc left %d rows", tl.Len())
	}
}

func TestTimelineGrowsAndFollows(t *testing.T) {
	rows := sampleRows(100)
	tl := NewTimeline(NewCommon(themes.Dark()))
	tl.SetSize(40, 10)
	tl.SetSource(rows[:50])
	tl.SetSource(rows)
	if r, _ := tl.Selected(); r.Seq != 100 {
		t.Errorf("following timeline selected %d after growth", r.Seq)
	}
	tl.Update(press("k"))
	tl.SetSource(append(rows, sampleRows(101)[100]))
	if r, _ := tl.Selected(); r.Seq != 99 {
		t.Errorf("scrolled timeline jumped to %d after growth", r.Seq)
	}
}

func TestTimelineAbandonedCannotRewind(t *testing.T) {
	rows := sampleRows(5)
	rows[4].Abandoned = true
	tl := NewTimeline(NewCommon(themes.Dark()))
	tl.SetSize(60, 8)
	tl.SetSource(rows)
	if _, cmd := tl.Update(press("r")); cmd != nil {
		t.Error("rewind to an abandoned event was requested")
	}
	if _, cmd := tl.Update(press("f")); run(cmd) != (ForkRequest{Seq: 5, Branch: "main"}) {
		t.Error("fork from an abandoned event was not requested")
	}
}

func TestTimelineTinySizes(t *testing.T) {
	tl := newTestTimeline(100)
	for _, sz := range [][2]int{{20, 5}, {10, 3}, {3, 2}, {0, 0}, {200, 60}} {
		tl.SetSize(sz[0], sz[1])
		if sz[1] == 0 {
			continue
		}
		checkSize(t, tl.View(), sz[0], sz[1])
	}
}

// TestTimelineFilterIsATextField: the filter being typed takes a paste and edits in place
// (bubbles' textinput); reopening it starts from the applied filter.
func TestTimelineFilterIsATextField(t *testing.T) {
	tl := newTestTimeline(70)
	tl.Update(press("/"))
	tl.Update(press("t"))
	tl.Update(tea.PasteMsg{Content: "ool.comp\n"})
	tl.Update(tea.KeyPressMsg{Code: tea.KeyHome})
	tl.Update(press("x"))
	if !strings.Contains(ansi.Strip(tl.View()), "/x▏tool.comp") {
		t.Fatalf("filter prompt:\n%s", ansi.Strip(tl.View()))
	}
	tl.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	tl.Update(press("enter"))
	if tl.Filter() != "tool.comp" || tl.Len() != 10 {
		t.Fatalf("filter %q kept %d rows", tl.Filter(), tl.Len())
	}
	tl.Update(press("/"))
	tl.Update(press("backspace"))
	tl.Update(press("enter"))
	if tl.Filter() != "tool.com" {
		t.Fatalf("reopened filter: %q", tl.Filter())
	}
}
