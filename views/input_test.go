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

// TestInputMentionCompletion types an @ mention: the first @ asks the app for the files, the
// popup fuzzy-matches them, tab into a folder keeps it open on the folder's entries, enter on a
// file completes it with a space, a path with a space is quoted, esc closes the popup for that
// mention, and while the popup shows, ↑/↓ move in it rather than in the history.
func TestInputMentionCompletion(t *testing.T) {
	in := NewInput(NewCommon(themes.Dark()))
	in.Focus()
	in.SetHistory([]string{"an older prompt"})
	typeText(in, "explain ")
	_, cmd := in.Update(press("@"))
	if cmd == nil {
		t.Fatal("typing @ did not ask for the files")
	}
	if _, ok := cmd().(FilesRequestedMsg); !ok {
		t.Fatal("typing @ did not ask for the files")
	}
	in.SetFiles(sampleFiles())
	if _, cmd := in.Update(press("s")); cmd != nil {
		t.Fatal("the files were asked for again")
	}
	typeText(in, "tev")
	if m := in.MentionMatches(); len(m) == 0 || m[0] != "store/event.go" {
		t.Fatalf("matches for @stev: %q", m)
	}
	in.Update(press("down"))
	in.Update(press("up"))
	if in.Value() != "explain @stev" {
		t.Fatalf("↑/↓ changed the text: %q", in.Value())
	}
	in.Update(press("enter"))
	if in.Value() != "explain @store/event.go " {
		t.Fatalf("after enter: %q", in.Value())
	}
	if in.PopupView(60) != "" {
		t.Fatal("the popup stayed open after a file was completed")
	}
	typeText(in, "and @harn")
	in.Update(press("tab"))
	if !strings.HasSuffix(in.Value(), "@harness/") {
		t.Fatalf("tab on a folder: %q", in.Value())
	}
	if m := in.MentionMatches(); len(m) != 4 || m[0] != "harness/api/" {
		t.Fatalf("the folder's entries: %q", m)
	}
	in.Update(press("tab"))
	in.Update(press("tab"))
	if !strings.HasSuffix(in.Value(), "@harness/api/api.go ") {
		t.Fatalf("walking down: %q", in.Value())
	}
	typeText(in, "@docs/a")
	in.Update(press("enter"))
	if !strings.HasSuffix(in.Value(), `@"docs/a b.md" `) {
		t.Fatalf("a path with a space: %q", in.Value())
	}
	typeText(in, "@main")
	in.Update(press("esc"))
	if in.PopupView(60) != "" || len(in.MentionMatches()) != 0 {
		t.Fatal("esc did not close the popup")
	}
	_, cmd = in.Update(press("enter"))
	msg, ok := cmd().(SubmitMsg)
	if !ok || msg.Text != `explain @store/event.go and @harness/api/api.go @"docs/a b.md" @main` {
		t.Fatalf("sent %#v", msg)
	}
	in.Update(press("up"))
	if in.Value() != msg.Text {
		t.Fatalf("history after the popup: %q", in.Value())
	}
}
