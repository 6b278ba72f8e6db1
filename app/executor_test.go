package app

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestExecutorCommandSelectsTheNextTurnsExecutor types /executor: an ACP agent that exists is
// recorded for the session and shown in the siblings pane; one that does not is refused.
func TestExecutorCommandSelectsTheNextTurnsExecutor(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	msg := m.slash("executor", "acp:/bin/cat")()
	set, ok := msg.(executorSetMsg)
	if !ok || !strings.Contains(set.text, "acp:/bin/cat") {
		t.Fatalf("/executor answered %#v", msg)
	}
	s, _ := m.c.Session(bg, m.current())
	st, err := m.c.State(bg, s.Branch)
	if err != nil || st.Executor != "acp:/bin/cat" {
		t.Fatalf("executor in force %q %v", st.Executor, err)
	}
	m.Update(set)
	m.Update(m.siblingsCmd()())
	if !strings.Contains(ansi.Strip(m.render()), "acp:/bin/cat·") {
		t.Fatalf("the siblings pane does not show the executor:\n%s", ansi.Strip(m.render()))
	}
	if info, ok := m.slash("executor", "")().(infoMsg); !ok || !strings.Contains(info.text, "executor: acp:/bin/cat") {
		t.Fatalf("/executor alone: %#v", info)
	}
	if info, ok := m.slash("executor", "acp:exo-no-such-agent")().(infoMsg); !ok || !info.err || !strings.Contains(info.text, "not found") {
		t.Fatalf("a missing agent: %#v", info)
	}
	if info, ok := m.slash("executor", "cursor")().(infoMsg); !ok || !info.err || !strings.Contains(info.text, "unknown executor") {
		t.Fatalf("an unknown executor: %#v", info)
	}
	if _, ok := m.slash("executor", "default")().(executorSetMsg); !ok {
		t.Fatal("/executor default refused")
	}
	if st, _ = m.c.State(bg, s.Branch); st.Executor != "default" {
		t.Fatalf("back to exo's executor: %q", st.Executor)
	}
}
