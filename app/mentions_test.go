package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"exo/harness"
	"exo/harness/service"
)

// feed runs cmd and hands what it returns back to the model, following batches, a few levels
// deep (commands that do not answer within a moment, like timers, are dropped).
func feed(m *Model, cmd tea.Cmd, depth int) {
	if cmd == nil || depth == 0 {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(2 * time.Second):
		return
	}
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			feed(m, c, depth)
		}
		return
	}
	if msg != nil {
		_, next := m.Update(msg)
		feed(m, next, depth-1)
	}
}

// TestAppMentionCompletion types "@ma" in the app: the files come from the session's
// workspace through the service, the popup shows them, and tab completes the mention rather
// than moving the focus to the next pane.
func TestAppMentionCompletion(t *testing.T) {
	h, err := harness.Open(t.TempDir(), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "make.log"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("*.log\n"), 0o644)
	s, err := h.NewSession(harness.NewSessionOptions{Name: "m", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(h, service.Options{})
	t.Cleanup(func() { svc.Close() })
	m := New(svc, Options{Session: s.ID, Theme: "dark"})
	m.Update(m.attachCmd()())
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for _, k := range "@ma" {
		_, cmd := m.Update(tea.KeyPressMsg{Code: k, Text: string(k)})
		feed(m, cmd, 3)
	}
	pop := m.input.PopupView(60)
	if !strings.Contains(pop, "main.go") || strings.Contains(pop, "make.log") {
		t.Fatalf("popup:\n%s", pop)
	}
	focus := m.focus
	m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	if m.focus != focus || m.input.Value() != "@main.go " {
		t.Fatalf("tab: focus %v (was %v), input %q", m.focus, focus, m.input.Value())
	}
	// A file made since (by the agent, say) is offered at the next @.
	os.WriteFile(filepath.Join(ws, "made_later.go"), []byte("package main\n"), 0o644)
	for _, k := range "@made" {
		_, cmd := m.Update(tea.KeyPressMsg{Code: k, Text: string(k)})
		feed(m, cmd, 3)
	}
	if pop := m.input.PopupView(60); !strings.Contains(pop, "made_later.go") {
		t.Fatalf("a new file is not offered:\n%s", pop)
	}
}
