package app

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// clipboardOf runs cmd and the commands it batches and returns what they set the clipboard to.
func clipboardOf(cmd tea.Cmd) string {
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
	if b, ok := msg.(tea.BatchMsg); ok {
		out := ""
		for _, c := range b {
			out += clipboardOf(c)
		}
		return out
	}
	if strings.Contains(fmt.Sprintf("%T", msg), "setClipboard") {
		return fmt.Sprint(msg)
	}
	return ""
}

// TestMouseWheelClickAndSelect: the wheel scrolls the pane under the pointer, not the focused
// one; a click focuses the pane it lands in; a drag in the conversation selects its cells
// (drawn reversed, the frame left out), and letting go copies exactly the text on screen to
// the clipboard. Keys work as before: typing goes to the prompt and ends the selection.
func TestMouseWheelClickAndSelect(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	conv, tl := m.lay.conv, m.lay.timeline
	if m.focus != focusInput {
		t.Fatalf("focus %v at start", m.focus)
	}
	// The wheel over the timeline scrolls it while the prompt keeps the focus.
	before := m.timeline.View()
	m.Update(tea.MouseWheelMsg{X: tl.x + 3, Y: tl.y + 3, Button: tea.MouseWheelUp})
	if m.focus != focusInput {
		t.Fatalf("the wheel moved the focus to %v", m.focus)
	}
	if m.timeline.View() == before {
		t.Fatal("the wheel over the timeline did not scroll it")
	}
	// A click focuses the pane under it.
	m.Update(tea.MouseClickMsg{X: tl.x + 2, Y: tl.y + 2, Button: tea.MouseLeft})
	m.Update(tea.MouseReleaseMsg{X: tl.x + 2, Y: tl.y + 2, Button: tea.MouseLeft})
	if m.focus != focusTimeline {
		t.Fatalf("a click on the timeline left the focus on %v", m.focus)
	}
	// A drag over the conversation's first rows, from its left edge (the frame) to past its
	// right one: the cells inside the frame are selected and copied.
	m.Update(tea.MouseClickMsg{X: conv.x, Y: conv.y + 1, Button: tea.MouseLeft})
	if m.focus != focusConv {
		t.Fatalf("a press in the conversation left the focus on %v", m.focus)
	}
	m.Update(tea.MouseMotionMsg{X: conv.x + 10, Y: conv.y + 2, Button: tea.MouseLeft})
	if !strings.Contains(m.View().Content, "\x1b[7m") {
		t.Fatal("the selection is not drawn while dragging")
	}
	rows := strings.Split(m.render(), "\n")
	_, cmd := m.Update(tea.MouseReleaseMsg{X: conv.x + conv.w + 5, Y: conv.y + 3, Button: tea.MouseLeft})
	var want []string
	for y := conv.y + 1; y <= conv.y+3; y++ {
		want = append(want, strings.TrimRight(ansi.Strip(ansi.Cut(rows[y], conv.x+1, conv.x+conv.w-1)), " "))
	}
	got := clipboardOf(cmd)
	if got != strings.Join(want, "\n") || !strings.Contains(got, "make it faster") || strings.ContainsAny(got, "│╭╮") {
		t.Fatalf("clipboard %q, want the conversation's cells %q", got, strings.Join(want, "\n"))
	}
	if !strings.Contains(m.info.Message, "copied the selection (3 lines)") {
		t.Fatalf("status %q", m.info.Message)
	}
	// Typing goes to the prompt, as without the mouse, and ends the selection.
	for _, r := range "hello" {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	if m.focus != focusInput || m.input.Value() != "hello" {
		t.Fatalf("typing after a selection: focus %v, prompt %q", m.focus, m.input.Value())
	}
	if strings.Contains(m.View().Content, "\x1b[7m") {
		t.Fatal("the selection is still drawn after a key")
	}
	// A click without a drag selects nothing and copies nothing.
	m.Update(tea.MouseClickMsg{X: conv.x + 4, Y: conv.y + 2, Button: tea.MouseLeft})
	if _, cmd := m.Update(tea.MouseReleaseMsg{X: conv.x + 4, Y: conv.y + 2, Button: tea.MouseLeft}); clipboardOf(cmd) != "" {
		t.Fatal("a click copied something")
	}
}

// TestMouseTeatest drives the running program with mouse messages: a wheel over the
// conversation and a drag do not break the screen, and typed text still reaches the prompt.
func TestMouseTeatest(t *testing.T) {
	m := newTestModel(t)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("slow path")) },
		teatest.WithDuration(10*time.Second))
	// The running program owns m: the pane's place comes from a model laid out the same way.
	ref := newTestModel(t)
	ref.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	conv := ref.lay.conv
	tm.Send(tea.MouseWheelMsg{X: conv.x + 5, Y: conv.y + 5, Button: tea.MouseWheelDown})
	tm.Send(tea.MouseClickMsg{X: conv.x + 2, Y: conv.y + 1, Button: tea.MouseLeft})
	tm.Send(tea.MouseMotionMsg{X: conv.x + 20, Y: conv.y + 1, Button: tea.MouseLeft})
	tm.Send(tea.MouseReleaseMsg{X: conv.x + 20, Y: conv.y + 1, Button: tea.MouseLeft})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("copied the selection")) },
		teatest.WithDuration(10*time.Second))
	tm.Type("typed after")
	tm.Send(tea.KeyPressMsg{Code: 'q', Mod: tea.ModCtrl})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	if fm.input.Value() != "typed after" || fm.focus != focusInput {
		t.Fatalf("after the mouse: prompt %q, focus %v", fm.input.Value(), fm.focus)
	}
}
