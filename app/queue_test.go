package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness"
	"exo/harness/service"
	"exo/views"
)

// slowScript answers after a long wait: a turn that runs until the test cancels it.
const slowScript = `name: slow
first_token: 20s
turns:
  - text: done
`

// settle runs cmd and what its messages lead to, a few levels deep, skipping commands that
// do not answer at once (timers).
func settle(m *Model, cmd tea.Cmd, depth int) {
	if cmd == nil || depth == 0 {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(300 * time.Millisecond):
		return
	}
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			settle(m, c, depth)
		}
		return
	}
	if msg != nil {
		_, next := m.Update(msg)
		settle(m, next, depth-1)
	}
}

// busyModel opens the app on a session whose turn, started from the app, waits for its model:
// a turn that runs until the test ends it.
func busyModel(t *testing.T) (*Model, *harness.Harness, *service.Service, *harness.Session) {
	t.Helper()
	h, err := harness.Open(t.TempDir(), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	script := filepath.Join(t.TempDir(), "slow.yaml")
	if err := os.WriteFile(script, []byte(slowScript), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "slow", Provider: "scripted", BaseURL: script}); err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "q", Workspace: t.TempDir(), Model: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(h, service.Options{})
	t.Cleanup(func() { svc.CancelTurn(bg, s.ID); svc.Close() })
	m := New(svc, Options{Session: s.ID, Theme: "dark"})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(m.attachCmd()())
	_, cmd := m.Update(views.SubmitMsg{Text: "write it"})
	settle(m, cmd, 2)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if st, _ := h.State(s.ID); st.ModelInFlight != 0 {
			if !m.busy() {
				t.Fatal("the app does not know its turn runs")
			}
			return m, h, svc, s
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the turn never called its model")
	return nil, nil, nil, nil
}

// TestAppQueuesAPromptWhileATurnRuns: enter while a turn runs queues the prompt in the harness
// (it is not refused and left in the input, as it was), the input lists it as queued, and ↑ on
// the empty prompt takes it back into the input.
func TestAppQueuesAPromptWhileATurnRuns(t *testing.T) {
	m, h, _, s := busyModel(t)
	_, cmd := m.Update(views.SubmitMsg{Text: "then run the tests"})
	settle(m, cmd, 2)
	if v := m.input.Value(); v != "" {
		t.Fatalf("the prompt was left in the input: %q (%s)", v, m.info.Message)
	}
	st, _ := h.State(s.ID)
	if len(st.Queued) != 1 || st.Queued[0].Text != "then run the tests" || st.Queued[0].Steer || st.Queued[0].Source != "tui" {
		t.Fatalf("queue: %+v", st.Queued)
	}
	settle(m, m.loadCmd(s.ID), 2) // what the watch would fold
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "⏸ queued  then run the tests") || !strings.Contains(screen, "enter queue") {
		t.Fatalf("the queued prompt is not shown:\n%s", screen)
	}
	_, cmd = m.Update(tea.KeyPressMsg{Code: tea.KeyUp})
	settle(m, cmd, 3)
	if v := m.input.Value(); v != "then run the tests" {
		t.Fatalf("↑ took back %q", v)
	}
	if st, _ := h.State(s.ID); len(st.Queued) != 0 {
		t.Fatalf("still queued: %+v", st.Queued)
	}
}

// TestAppSteersTheRunningTurn: ctrl+s while a turn runs queues the prompt to steer it.
func TestAppSteersTheRunningTurn(t *testing.T) {
	m, h, _, s := busyModel(t)
	typed := "use tabs"
	for _, r := range typed {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	_, cmd := m.Update(tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl})
	settle(m, cmd, 3)
	st, _ := h.State(s.ID)
	if len(st.Queued) != 1 || st.Queued[0].Text != typed || !st.Queued[0].Steer {
		t.Fatalf("queue: %+v (%s)", st.Queued, m.info.Message)
	}
	if !strings.Contains(m.info.Message, "steer") {
		t.Fatalf("status: %q", m.info.Message)
	}
}
