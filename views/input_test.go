package views

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/themes"
)

func newTestInput() *Input {
	in := NewInput(NewCommon(themes.Dark()))
	in.SetSize(60, 6)
	in.Focus()
	return in
}

func typeText(in *Input, s string) {
	for _, r := range s {
		in.Update(press(string(r)))
	}
}

func TestInputSendKinds(t *testing.T) {
	cases := []struct {
		text string
		want tea.Msg
	}{
		{"hello there", SubmitMsg{Text: "hello there"}},
		{"!ls -la", ShellCommandMsg{Command: "ls -la"}},
		{"/model gpt-5", SlashCommandMsg{Name: "model", Args: "gpt-5"}},
	}
	for _, c := range cases {
		in := newTestInput()
		typeText(in, c.text)
		_, cmd := in.Update(press("enter"))
		if got := run(cmd); got != c.want {
			t.Errorf("%q sent %#v, want %#v", c.text, got, c.want)
		}
		if in.Value() != "" {
			t.Errorf("editor not cleared after send: %q", in.Value())
		}
	}
}

func TestInputNewlineAndHistory(t *testing.T) {
	in := newTestInput()
	typeText(in, "one")
	in.Update(press("alt+enter"))
	typeText(in, "two")
	if in.Value() != "one\ntwo" {
		t.Fatalf("value = %q", in.Value())
	}
	run(func() tea.Cmd { _, c := in.Update(press("enter")); return c }())
	typeText(in, "second")
	in.Update(press("enter"))
	typeText(in, "draft")
	in.Update(press("up"))
	if in.Value() != "second" {
		t.Fatalf("up recalled %q", in.Value())
	}
	in.Update(press("up"))
	in.Update(press("up"))
	if in.Value() != "one\ntwo" {
		t.Fatalf("second up recalled %q", in.Value())
	}
	in.Update(press("down"))
	in.Update(press("down"))
	in.Update(press("down"))
	if in.Value() != "draft" {
		t.Fatalf("down did not restore the draft: %q", in.Value())
	}
}

func TestInputSlashCompletion(t *testing.T) {
	in := newTestInput()
	typeText(in, "/re")
	if !strings.Contains(ansi.Strip(in.View()), "/rewind") {
		t.Fatalf("no completion shown:\n%s", ansi.Strip(in.View()))
	}
	in.Update(press("tab"))
	if in.Value() != "/rewind " {
		t.Fatalf("tab completed to %q", in.Value())
	}
	in.SetValue("/")
	in.Update(press("down"))
	_, cmd := in.Update(press("enter"))
	if cmd != nil || in.Value() != "/fork " {
		t.Fatalf("enter on a completion gave %q", in.Value())
	}
	in.SetValue("/quit")
	_, cmd = in.Update(press("enter"))
	if got := run(cmd); got != (SlashCommandMsg{Name: "quit"}) {
		t.Fatalf("/quit sent %#v", got)
	}
}

func TestInputPasteChip(t *testing.T) {
	in := newTestInput()
	big := strings.Repeat("line of pasted text\n", 1233) + "last"
	in.Update(tea.PasteMsg{Content: big})
	if !strings.Contains(in.Value(), "[pasted 1,234 lines #1]") {
		t.Fatalf("no chip: %q", in.Value())
	}
	typeText(in, " explain")
	_, cmd := in.Update(press("enter"))
	msg, _ := run(cmd).(SubmitMsg)
	if msg.Text != big+" explain" {
		t.Errorf("chip not expanded on send (len %d)", len(msg.Text))
	}
}

func TestInputFits(t *testing.T) {
	in := newTestInput()
	typeText(in, strings.Repeat("wide 日本語 text 🚀 ", 20))
	for _, sz := range [][2]int{{20, 3}, {20, 5}, {60, 6}, {120, 8}} {
		in.SetSize(sz[0], sz[1])
		checkSize(t, in.View(), sz[0], sz[1])
	}
}

func TestInputDesiredHeight(t *testing.T) {
	in := newTestInput()
	if h := in.DesiredHeight(40, 4, 10); h != 4 {
		t.Errorf("empty input wants %d lines", h)
	}
	in.SetValue("a\nb\nc\nd\ne")
	if h := in.DesiredHeight(40, 4, 10); h != 8 {
		t.Errorf("5-line input wants %d lines, want 8", h)
	}
	in.SetValue(strings.Repeat("x", 1000))
	if h := in.DesiredHeight(40, 4, 10); h != 10 {
		t.Errorf("long input wants %d lines, want the max", h)
	}
}

func TestInputPopup(t *testing.T) {
	in := newTestInput()
	if in.PopupView(40) != "" {
		t.Error("popup shown with nothing typed")
	}
	typeText(in, "/")
	p := in.PopupView(40)
	checkMaxWidth(t, p, 40, len(SlashCommands)+2)
	for _, c := range SlashCommands {
		if !strings.Contains(ansi.Strip(p), "/"+c.Name) {
			t.Errorf("popup lacks /%s", c.Name)
		}
	}
	typeText(in, "co")
	if got := in.Completions(); len(got) != 1 || got[0].Name != "compact" {
		t.Errorf("completions for /co = %v", got)
	}
}

func TestInputEscapesAndRecalledChips(t *testing.T) {
	in := newTestInput()
	typeText(in, "//etc/hosts is odd")
	if _, cmd := in.Update(press("enter")); run(cmd) != (SubmitMsg{Text: "/etc/hosts is odd"}) {
		t.Error("// did not escape the slash")
	}
	typeText(in, "!")
	if _, cmd := in.Update(press("enter")); cmd != nil {
		t.Error("empty shell command was sent")
	}
	big := strings.Repeat("row\n", 20)
	in.Update(tea.PasteMsg{Content: big})
	in.Update(press("enter"))
	in.Update(press("up"))
	_, cmd := in.Update(press("enter"))
	if msg, _ := run(cmd).(SubmitMsg); msg.Text != big {
		t.Errorf("recalled chip sent %q", msg.Text)
	}
}
