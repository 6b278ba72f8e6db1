package views

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/themes"
)

func TestSiblingsTreeAndKeys(t *testing.T) {
	s := NewSiblings(NewCommon(themes.Dark()))
	s.SetSize(80, 10)
	s.Focus()
	s.SetRows(sampleSiblings())
	var order []string
	for _, r := range s.rows {
		order = append(order, r.ID)
	}
	if got := strings.Join(order, ","); got != "s1,s2,s4,s3,s5,s6,s7,s8,s9" {
		t.Fatalf("tree order %s", got)
	}
	s.Update(press("j"))
	_, cmd := s.Update(press("enter"))
	if got := run(cmd); got != (SwitchSession{ID: "s2"}) {
		t.Errorf("enter sent %#v", got)
	}
	if _, cmd = s.Update(press("n")); run(cmd) != (NewSession{}) {
		t.Error("n did not ask for a new session")
	}
	if _, cmd = s.Update(press("s")); run(cmd) != (ToggleSplit{ID: "s2"}) {
		t.Error("s did not toggle the split")
	}
	if _, cmd = s.Update(press("d")); run(cmd) != (ConflictDiff{ID: "s2", Name: "try-middleware"}) {
		t.Error("d did not ask for the conflict diff")
	}
	s.SetRows(sampleSiblings()[1:])
	if r, _ := s.Selected(); r.ID != "s2" {
		t.Errorf("selection moved to %s on refresh", r.ID)
	}
	view := ansi.Strip(s.View())
	for _, want := range []string{"scripted", "!2", "0.81", "└"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
}

func TestDriftLevels(t *testing.T) {
	for d, want := range map[float64]DriftLevel{0: DriftLow, 0.29: DriftLow, 0.3: DriftMid, 0.69: DriftMid, 0.7: DriftHigh, 1: DriftHigh} {
		if got := LevelOf(d); got != want {
			t.Errorf("LevelOf(%v) = %v, want %v", d, got, want)
		}
	}
	st := themes.Dark()
	if DriftBar(st, 0.1, 8) == DriftBar(st, 0.9, 8) || ansi.StringWidth(DriftBar(st, 0.5, 8)) != 13 {
		t.Error("drift bar does not vary or has the wrong width")
	}
}

func TestSandboxRingAndScroll(t *testing.T) {
	s := NewSandbox(NewCommon(themes.Dark()), 100)
	s.SetSize(40, 10)
	for i := 0; i < 250; i++ {
		s.Write(fmt.Sprintf("line %d\n", i))
	}
	if s.Lines() != 100 {
		t.Fatalf("ring holds %d lines, want 100", s.Lines())
	}
	s.Write("partial ")
	s.Write("line\x1b]52;c;ZXZpbA==\x07 done\n")
	view := ansi.Strip(s.View())
	if !strings.Contains(view, "partial line done") {
		t.Errorf("partial line not joined:\n%s", view)
	}
	checkSize(t, s.View(), 40, 10)
	s.Update(press("k"))
	s.Update(press("k"))
	if !strings.Contains(ansi.Strip(s.View()), "line 247") || strings.Contains(ansi.Strip(s.View()), "partial") {
		t.Errorf("scroll up did not move:\n%s", ansi.Strip(s.View()))
	}
	s.Write("more\n")
	if !strings.Contains(ansi.Strip(s.View()), "line 247") {
		t.Error("new output moved a scrolled view")
	}
	s.Update(press("G"))
	if !strings.Contains(ansi.Strip(s.View()), "more") {
		t.Error("G did not return to the newest output")
	}
	s.Update(press("g"))
	if !strings.Contains(ansi.Strip(s.View()), "line 152") {
		t.Errorf("g did not reach the oldest kept line:\n%s", ansi.Strip(s.View()))
	}
}

func TestStatusBarNarrow(t *testing.T) {
	s := NewStatusBar(NewCommon(themes.Dark()))
	s.SetInfo(sampleStatus())
	for _, w := range []int{200, 80, 60, 30, 12, 1} {
		s.SetWidth(w)
		v := s.View()
		checkSize(t, v, w, 1)
		if ansi.StringWidth(v) != w {
			t.Errorf("bar is %d wide, want %d", ansi.StringWidth(v), w)
		}
	}
	s.SetWidth(60)
	if v := ansi.Strip(s.View()); !strings.Contains(v, "health-check") || !strings.Contains(v, "scripted") {
		t.Errorf("narrow bar lost the essentials: %q", v)
	}
}

func TestApprovalKeys(t *testing.T) {
	a := NewApproval(NewCommon(themes.Dark()), ApprovalRequest{ID: "r1", Tool: "bash", Args: "ls"})
	a.SetSize(60, 20)
	for k, want := range map[string]Decision{"y": ApproveOnce, "a": ApproveAlways, "n": Deny, "esc": Deny} {
		if _, cmd := a.Update(press(k)); run(cmd) != (ApprovalDecision{ID: "r1", Decision: want}) {
			t.Errorf("%s did not decide %v", k, want)
		}
	}
	a.Update(press("right"))
	if _, cmd := a.Update(press("enter")); run(cmd) != (ApprovalDecision{ID: "r1", Decision: ApproveAlways}) {
		t.Error("right, enter did not approve always")
	}
	checkMaxWidth(t, a.View(), 60, 20)
}

func TestConfirmKeys(t *testing.T) {
	c := NewConfirm(NewCommon(themes.Dark()), RewindPlan{Seq: 7, Events: 3})
	c.SetSize(40, 12)
	if _, cmd := c.Update(press("y")); run(cmd) != (RewindConfirmed{Seq: 7}) {
		t.Error("y did not confirm")
	}
	if _, cmd := c.Update(press("esc")); run(cmd) != (RewindCanceled{}) {
		t.Error("esc did not cancel")
	}
	checkMaxWidth(t, c.View(), 40, 12)
}

func TestDetailAndHelpClose(t *testing.T) {
	c := NewCommon(themes.Dark())
	d := NewDetail(c, "#1 x", []byte(`{"a":1}`))
	d.SetSize(30, 8)
	if _, cmd := d.Update(press("esc")); run(cmd) != (CloseOverlay{}) {
		t.Error("esc did not close the detail")
	}
	checkSize(t, d.View(), 30, 8)
	h := NewHelp(c)
	h.SetSize(40, 20)
	h.SetKeyMap("Sessions", NewSiblings(c))
	if !strings.Contains(ansi.Strip(h.View()), "new session") {
		t.Error("help lacks the pane's keys")
	}
	if _, cmd := h.Update(press("?")); run(cmd) != (CloseOverlay{}) {
		t.Error("? did not close help")
	}
}

func TestSplitFocus(t *testing.T) {
	c := NewCommon(themes.Dark())
	s := NewSplit(c)
	convs := []*Conversation{NewConversation(c), NewConversation(c), NewConversation(c)}
	s.SetPanes(convs...)
	s.SetSize(61, 10)
	s.Focus()
	if !convs[0].Focused() || convs[1].Focused() {
		t.Fatal("first pane not the only focused one")
	}
	s.Update(press("l"))
	if s.Current() != 1 || !convs[1].Focused() || convs[0].Focused() {
		t.Error("l did not move focus right")
	}
	s.Update(StreamDeltaMsg{Text: "only in pane two"})
	if convs[1].Len() != 1 || convs[0].Len() != 0 {
		t.Error("stream went to the wrong pane")
	}
	checkSize(t, s.View(), 61, 10)
	s.Update(press("h"))
	s.Update(press("h"))
	if s.Current() != 2 {
		t.Errorf("h wrapped to %d", s.Current())
	}
}

func TestOverlay(t *testing.T) {
	bg := strings.Repeat(strings.Repeat(".", 10)+"\n", 4) + strings.Repeat(".", 10)
	got := Overlay(bg, "ab\ncd")
	want := "..........\n....ab....\n....cd....\n..........\n.........."
	if ansi.Strip(got) != want {
		t.Errorf("Overlay =\n%s", ansi.Strip(got))
	}
}

func TestThemeChangeDropsCaches(t *testing.T) {
	c := NewCommon(themes.Dark())
	conv := NewConversation(c)
	conv.SetSize(60, 20)
	conv.SetItems(sampleConversation())
	dark := conv.View()
	c.SetStyles(themes.Light())
	light := conv.View()
	if dark == light {
		t.Error("view did not change with the theme")
	}
	if ansi.Strip(dark) != ansi.Strip(light) {
		t.Error("theme change altered the text")
	}
}

func TestEveryPaneAtTinySizes(t *testing.T) {
	c := NewCommon(themes.Dark())
	panes := map[string]Pane{}
	for name, build := range goldenPanes {
		if p, ok := build(c, 60).(sizer); ok {
			panes[name] = p.Pane
		}
	}
	for name, p := range panes {
		for _, sz := range [][2]int{{20, 5}, {12, 3}, {60, 20}, {4, 3}} {
			p.SetSize(sz[0], sz[1])
			p.Update(SpinnerTickMsg{})
			p.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
			checkMaxWidth(t, p.View(), sz[0], sz[1])
			if !overlayPane(name) {
				checkSize(t, p.View(), sz[0], sz[1])
			}
		}
	}
}

func TestSandboxBoundsLongLines(t *testing.T) {
	s := NewSandbox(NewCommon(themes.Dark()), 10)
	chunk := strings.Repeat("x", 4096)
	for i := 0; i < 100; i++ {
		s.Write(chunk)
	}
	total := 0
	for i := 0; i < s.lines.Len(); i++ {
		if len(s.lines.At(i)) > maxLineBytes {
			t.Fatalf("line %d holds %d bytes", i, len(s.lines.At(i)))
		}
		total += len(s.lines.At(i))
	}
	if total > 10*maxLineBytes {
		t.Errorf("sandbox holds %d bytes", total)
	}
}

func TestOverlayOverWideCharacters(t *testing.T) {
	bg := strings.Repeat("日本語日本語日本\n", 3) + "日本語日本語日本"
	got := Overlay(bg, "abc\nxyz")
	if line := ansi.Strip(strings.Split(got, "\n")[2]); line != "日本語xyz 語日本" {
		t.Errorf("overlay line = %q", line)
	}
	for i, l := range strings.Split(got, "\n") {
		if w := ansi.StringWidth(l); w != 16 {
			t.Errorf("line %d is %d wide, want 16: %q", i, w, ansi.Strip(l))
		}
	}
}

func TestLabelsCannotCarryEscapes(t *testing.T) {
	evil := "x\x1b]0;pwned\x07\x1b[2J\x1b[31my"
	c := NewCommon(themes.Dark())
	tl := NewTimeline(c)
	tl.SetSize(120, 5)
	tl.SetSource(TimelineRows{{Seq: 1, Type: evil, Actor: evil, Summary: evil, Glyph: evil}})
	s := NewSiblings(c)
	s.SetSize(120, 5)
	s.SetRows([]SiblingRow{{ID: "a", Name: evil, Model: evil}})
	bar := NewStatusBar(c)
	bar.SetWidth(120)
	bar.SetInfo(StatusInfo{Session: evil, Model: evil, Message: evil})
	conv := NewConversation(c)
	conv.SetSize(80, 10)
	conv.SetTitle(evil)
	conv.SetItems([]ConvItem{{Kind: KindTool, Tool: evil, ArgsSummary: evil, Output: evil}})
	for _, v := range []string{tl.View(), s.View(), bar.View(), conv.View()} {
		checkControls(t, v)
		if strings.Contains(v, "\x1b[31m") && !strings.Contains(v, "xy") {
			t.Errorf("label kept its own colour: %q", v)
		}
	}
}

func TestSandboxProgressRedraw(t *testing.T) {
	s := NewSandbox(NewCommon(themes.Dark()), 10)
	s.SetSize(40, 6)
	s.Write("downloading 10%")
	s.Write("\rdownloading 55%")
	s.Write("\rdownloading 100%\r\ndone\r\n")
	if s.Lines() != 2 || s.lines.At(0) != "downloading 100%" || s.lines.At(1) != "done" {
		t.Errorf("lines = %d %q %q", s.Lines(), s.lines.At(0), s.lines.At(1))
	}
}

// TestSiblingsColumnsAlignAndMoreMarker: at every width the columns of all rows start at the
// same cell, and when the sessions do not fit, the pane says how many more there are.
func TestSiblingsColumnsAlignAndMoreMarker(t *testing.T) {
	for _, w := range []int{44, 60, 84, 120} {
		s := NewSiblings(NewCommon(themes.Dark()))
		s.SetSize(w, 14)
		s.SetRows(sampleSiblings())
		lines := strings.Split(ansi.Strip(s.View()), "\n")
		col := -1
		for _, l := range lines[1 : len(lines)-1] {
			i := strings.IndexAny(l, "█░")
			if i < 0 {
				continue
			}
			if c := ansi.StringWidth(l[:i]); col >= 0 && c != col {
				t.Fatalf("width %d: the drift column starts at %d and at %d:\n%s", w, col, c, strings.Join(lines, "\n"))
			} else {
				col = c
			}
		}
		if col < 0 && w >= 60 {
			t.Fatalf("width %d: no drift column:\n%s", w, strings.Join(lines, "\n"))
		}
	}
	s := NewSiblings(NewCommon(themes.Dark()))
	s.SetSize(60, 6)
	s.SetRows(sampleSiblings())
	if v := ansi.Strip(s.View()); !strings.Contains(v, "↓ 6 more") || !strings.Contains(v, "1-3/9") {
		t.Fatalf("no marker for the sessions below:\n%s", v)
	}
}

// TestSiblingsShowTheCurrentSessionAndItsProject: opened on (or switched to) a session far down
// the list, the pane selects it so its ▸ row is in view; the marker line says "above" only when
// rows are above; and when sessions of several projects are listed, the project column is
// kept at a width where it used to be dropped first.
func TestSiblingsShowTheCurrentSessionAndItsProject(t *testing.T) {
	var rows []SiblingRow
	for i := 1; i <= 13; i++ {
		dir := "exo"
		if i > 7 {
			dir = "website"
		}
		rows = append(rows, SiblingRow{ID: fmt.Sprintf("s%d", i), Name: fmt.Sprintf("session-%d", i), Dir: dir, Model: "gpt-5", Cost: 0.1, Clients: 1})
	}
	s := NewSiblings(NewCommon(themes.Dark()))
	s.SetSize(49, 9)
	s.SetCurrent("s13") // the app knows its session before the list arrives
	s.SetRows(rows)
	v := ansi.Strip(s.View())
	if !strings.Contains(v, "▸○ session-13") {
		t.Fatalf("the current session's row is not in view:\n%s", v)
	}
	if strings.Contains(v, "↓ 0 more") || !strings.Contains(v, "↑ 7 above · j/k") {
		t.Fatalf("at the end of the list the marker line says:\n%s", v)
	}
	if !strings.Contains(v, "website") {
		t.Fatalf("sessions of two projects and no project column:\n%s", v)
	}
	s.SetCurrent("s1")
	v = ansi.Strip(s.View())
	if !strings.Contains(v, "▸○ session-1 ") || strings.Contains(v, "above") || !strings.Contains(v, "↓ 7 more · j/k") {
		t.Fatalf("after a switch to the first row:\n%s", v)
	}
	s.SetRows(rows) // a refresh does not move the selection the user made
	s.move(12)
	s.SetRows(rows)
	if r, _ := s.Selected(); r.ID != "s13" {
		t.Fatalf("a refresh moved the selection to %s", r.ID)
	}
}
