package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness"
	"exo/views"
)

// TestMouseIsCapturedByDefault: the app takes mouse reports (cell motion: the wheel scrolls,
// a drag selects with the app's own selection) until alt+m gives the mouse to the terminal;
// alt+m again takes it back.
func TestMouseIsCapturedByDefault(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if mode := m.View().MouseMode; mode != tea.MouseModeCellMotion {
		t.Fatalf("mouse mode %v by default, want cell motion", mode)
	}
	m.Update(tea.KeyPressMsg{Code: 'm', Mod: tea.ModAlt})
	if mode := m.View().MouseMode; mode != tea.MouseModeNone {
		t.Fatalf("alt+m: mouse mode %v, want none", mode)
	}
	m.Update(tea.KeyPressMsg{Code: 'm', Mod: tea.ModAlt})
	if mode := m.View().MouseMode; mode != tea.MouseModeCellMotion {
		t.Fatalf("alt+m twice: mouse mode %v, want cell motion", mode)
	}
}

// raws runs cmd and the commands it batches (each given a moment: timers are skipped) and
// returns what tea.Raw commands among them would write to the terminal.
func raws(cmd tea.Cmd) string {
	if cmd == nil {
		return ""
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(300 * time.Millisecond):
		return ""
	}
	switch msg := msg.(type) {
	case tea.BatchMsg:
		out := ""
		for _, c := range msg {
			out += raws(c)
		}
		return out
	case tea.RawMsg:
		return fmt.Sprint(msg.Msg)
	}
	return ""
}

// TestNotifiesOnlyWhenUnfocused: a turn that ends while the terminal is not focused rings the
// bell and sends an OSC 9 notification naming the session; with focus, nothing is sent; an
// approval that waits notifies too.
func TestNotifiesOnlyWhenUnfocused(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if !m.View().ReportFocus {
		t.Fatal("the app does not ask the terminal for focus reports")
	}
	id := m.current()
	end := func(turn string) string {
		m.Update(noticesMsg{[]harness.Notice{{Session: id, Turn: &harness.TurnNotice{ID: turn, Running: true}}}})
		_, cmd := m.Update(noticesMsg{[]harness.Notice{{Session: id, Turn: &harness.TurnNotice{ID: turn, Result: &harness.TurnResult{}}}}})
		return raws(cmd)
	}
	if got := end("t1"); got != "" {
		t.Fatalf("focused terminal got %q", got)
	}
	m.Update(tea.BlurMsg{})
	got := end("t2")
	if !strings.Contains(got, "\x1b]9;exo: layout: the turn finished\x07") || !strings.Contains(got, "\a") {
		t.Fatalf("unfocused terminal got %q", got)
	}
	// An approval rings once it has waited a moment (one answered at once never does).
	req := harness.ApprovalRequested{CallID: "c9", Tool: "bash", Summary: "rm -rf build; \x1b]0;x\x07"}
	askApproval(m, req)
	_, cmd := m.Update(m.approvalAsked(&req)()) // the notice's timer, run out
	if got := raws(cmd); !strings.Contains(got, "\x1b]9;exo: layout waits for your approval: bash rm -rf build") || strings.Count(got, "\x1b") != 1 {
		t.Fatalf("approval notification %q", got)
	}
	m.Update(tea.FocusMsg{})
	if got := end("t3"); got != "" {
		t.Fatalf("refocused terminal got %q", got)
	}
}

// TestCopyGoesToTheClipboard: y in the conversation sends the newest answer with OSC 52.
func TestCopyGoesToTheClipboard(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.setFocus(focusConv)
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'y', Mod: tea.ModAlt})
	_, cmd = m.Update(cmd())
	var clip string
	for _, c := range cmd().(tea.BatchMsg) {
		if c == nil {
			continue
		}
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		select {
		case msg := <-done:
			if strings.Contains(fmt.Sprintf("%T", msg), "setClipboard") {
				clip = fmt.Sprint(msg)
			}
		case <-time.After(300 * time.Millisecond):
		}
	}
	if clip != "# Done\n\nThe **slow path** is fixed." {
		t.Fatalf("clipboard got %q", clip)
	}
	if !strings.Contains(m.info.Message, "copied the answer (3 lines)") {
		t.Fatalf("status %q", m.info.Message)
	}
}

// TestEditPromptInEditor: ctrl+g hands the prompt (pasted chips expanded) to $EDITOR in a
// temporary file and puts what the editor saved back in the input; the file is removed. The
// draft ends with a newline, so a line the editor adds is a line of its own, not joined onto
// the prompt's last line.
func TestEditPromptInEditor(t *testing.T) {
	script := filepath.Join(t.TempDir(), "ed.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nfor f; do :; done\nprintf 'second line\\nthird line\\n' >> \"$f\"\n"), 0o755)
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", script+" --wait")
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.input.SetValue("first")
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'g', Mod: tea.ModCtrl})
	edit, ok := cmd().(views.EditPromptMsg)
	if !ok || edit.Text != "first" {
		t.Fatalf("ctrl+g sent %#v", edit)
	}
	ready := writeDraftCmd(edit.Text)().(editorReadyMsg)
	if ready.err != nil {
		t.Fatal(ready.err)
	}
	if m.onEditor(ready) == nil {
		t.Fatal("no editor run")
	}
	run := editorCommand(ready.path) // what tea.ExecProcess runs, with the terminal handed over
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("editor: %v %s", err, out)
	}
	m.Update(readDraft(ready.path, nil))
	if got := m.input.Value(); got != "first\nsecond line\nthird line" {
		t.Fatalf("input after editing: %q", got)
	}
	if _, err := os.Stat(ready.path); err == nil {
		t.Fatal("the draft file is left behind")
	}
}

// TestPasteReachesThePrompt: a paste goes to the prompt whatever pane has focus, and a large
// one is collapsed to a chip that expands when the prompt is sent.
func TestPasteReachesThePrompt(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.setFocus(focusTimeline)
	m.Update(tea.PasteMsg{Content: "short paste"})
	if m.focus != focusInput || m.input.Value() != "short paste" {
		t.Fatalf("focus %d, input %q", m.focus, m.input.Value())
	}
	m.input.SetValue("")
	big := strings.Repeat("line\n", 300)
	m.Update(tea.PasteMsg{Content: big})
	if v := m.input.Value(); !strings.Contains(v, "[pasted 300 lines #1]") || strings.Contains(ansi.Strip(m.render()), "line\nline") {
		t.Fatalf("large paste not a chip: %q", v)
	}
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if sub, ok := cmd().(views.SubmitMsg); !ok || sub.Text != big {
		t.Fatalf("sent %#v", sub)
	}
	// Terminals send pasted line ends as CR (CRLF from Windows text): lines stay lines.
	m.input.SetValue("")
	m.Update(tea.PasteMsg{Content: "a1\rb2\r\nc3"})
	if v := m.input.Value(); v != "a1\nb2\nc3" {
		t.Fatalf("a 3-line paste with CR line ends became %q", v)
	}
	m.input.SetValue("")
	m.Update(tea.PasteMsg{Content: strings.Repeat("line\r", 300)})
	if v := m.input.Value(); !strings.Contains(v, "300 lines") {
		t.Fatalf("a 300-line paste with CR line ends: %q", v)
	}
}

// TestApprovalAnsweredAtOnceNeverRings: an approval that a policy, `--yes` or another window
// answers within a moment sends no notification (one rang for a call answered 2 ms later);
// one that still waits does.
func TestApprovalAnsweredAtOnceNeverRings(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(tea.BlurMsg{})
	req := harness.ApprovalRequested{CallID: "c10", Tool: "bash", Summary: "make"}
	askApproval(m, req)
	timer := m.approvalAsked(&req)
	rec := harness.MustRecord(harness.TypeApprovalResolved, harness.ActorUser, harness.ApprovalResolved{CallID: "c10", Decision: "once"})
	ev := harness.Event{Branch: m.state.Branch, Seq: m.state.Head + 1, Type: rec.Type, Actor: rec.Actor, Data: rec.Data}
	m.Update(noticesMsg{[]harness.Notice{{Session: m.current(), Events: []harness.Event{ev}}}})
	if _, cmd := m.Update(timer()); raws(cmd) != "" {
		t.Fatalf("an approval answered at once rang: %q", raws(cmd))
	}
	if m.overlay != nil {
		t.Fatal("the answered approval's dialog is still up")
	}
	req.CallID = "c11"
	askApproval(m, req)
	if _, cmd := m.Update(m.approvalAsked(&req)()); !strings.Contains(raws(cmd), "waits for your approval") {
		t.Fatalf("an approval that still waits did not ring: %q", raws(cmd))
	}
}
