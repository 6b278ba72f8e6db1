package app

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness"
	"exo/harness/api"
)

// TestSlashSeqsAreChecked: /rewind past the head is refused before anything is asked (it opened
// a confirmation of "0 events" that failed only after y), and a word where an event number
// belongs says so instead of quoting strconv.
func TestSlashSeqsAreChecked(t *testing.T) {
	m := newTestModel(t)
	for _, c := range []struct{ name, args, want string }{
		{"rewind", "999", "seq 999 is past the head"},
		{"fork", "999", "seq 999 is past the head"},
		{"fork", "abc", `"abc" is not an event number`},
		{"rewind", "x1", "give the event number"},
	} {
		m.info.Message = ""
		if cmd := m.slash(c.name, c.args); m.info.Message == "" {
			m.Update(cmd()) // the harness's answer; a message said at once needs no run
		}
		if m.overlay != nil {
			t.Fatalf("/%s %s opened a dialog", c.name, c.args)
		}
		if !strings.Contains(m.info.Message, c.want) || !m.info.MessageErr || strings.Contains(m.info.Message, "strconv") {
			t.Fatalf("/%s %s says %q, want an error with %q", c.name, c.args, m.info.Message, c.want)
		}
	}
}

// TestNoModelSaysHowToStart: with no model registered, an empty session's conversation says how
// to start (the status bar's message fades and was cut at 60 columns) until a model is chosen.
func TestNoModelSaysHowToStart(t *testing.T) {
	m := newTestModel(t)
	s, err := m.c.NewSession(bg, api.NewSessionRequest{Name: "fresh"})
	if err != nil {
		t.Fatal(err)
	}
	switchSession(m, s.ID)
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	if !m.noModel {
		t.Skip("a model is registered in the test harness")
	}
	screen := ansi.Strip(m.render())
	if !strings.Contains(screen, "No model is registered yet.") || !strings.Contains(screen, "/model demo for the") {
		t.Fatalf("an empty session without a model does not say how to start:\n%s", screen)
	}
	m.Update(m.setModelCmd("demo")())
	m.Update(m.loadCmd(s.ID)())
	if screen := ansi.Strip(m.render()); strings.Contains(screen, "No model is registered") || !strings.Contains(screen, "no messages yet") {
		t.Fatalf("after /model demo the pane still says no model:\n%s", screen)
	}
}

// TestApprovalIgnoresKeysTypedAsItOpens: an approval that opens while the user types a prompt is
// not answered by the letters that follow ("/compact"'s o approved a command once); after a
// moment its keys answer it.
func TestApprovalIgnoresKeysTypedAsItOpens(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	askApproval(m, harness.ApprovalRequested{CallID: "c7", Tool: "bash", Summary: "rm -rf build"})
	if m.approvalID != "c7" || m.overlay == nil {
		t.Fatal("the approval did not open")
	}
	for _, k := range "/compact" {
		m.Update(tea.KeyPressMsg{Code: k, Text: string(k)})
	}
	if m.approvalID != "c7" || m.overlay == nil {
		t.Fatal("keys typed as the approval opened answered it")
	}
	if !strings.Contains(ansi.Strip(m.render()), "keys answer in a moment") {
		t.Fatal("the held approval does not say its keys wait")
	}
	m.Update(approvalArmMsg{id: "c7"}) // a moment later
	if !strings.Contains(ansi.Strip(m.render()), "y approve once") {
		t.Fatal("the armed approval shows no answers")
	}
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'n', Text: "n"})
	if cmd != nil {
		m.Update(cmd())
	}
	if m.approvalID != "" || m.overlay != nil {
		t.Fatal("n after a moment did not answer the approval")
	}
}

// TestApprovalShowsTheCommand: a shell command waiting for approval is shown as the command
// (its lines and quotes as they are), not as JSON with escapes; other arguments below it.
func TestApprovalShowsTheCommand(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	askApproval(m, harness.ApprovalRequested{CallID: "c8", Tool: "bash",
		Args: []byte(`{"command":"rm -rf build\necho \"done\"","background":true}`), Summary: "rm -rf build"})
	screen := ansi.Strip(m.render())
	for _, want := range []string{"│ rm -rf build", `│ echo "done"`, "│ background: true"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the approval does not show %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, `{"command"`) || strings.Contains(screen, `\"done\"`) {
		t.Fatalf("the approval shows the command as JSON:\n%s", screen)
	}
}

// askApproval commits an approval request to the shown session as the watch stream brings it
// (the next event of its branch) and returns what the app does about it.
func askApproval(m *Model, r harness.ApprovalRequested) tea.Cmd {
	rec := harness.MustRecord(harness.TypeApprovalRequested, harness.ActorHarness, r)
	ev := harness.Event{Branch: m.state.Branch, Seq: m.state.Head + 1, Type: rec.Type, Actor: rec.Actor, Data: rec.Data}
	_, cmd := m.Update(noticesMsg{[]harness.Notice{{Session: m.current(), Events: []harness.Event{ev}}}})
	return cmd
}

// TestSlashBudgetChangesTheBudget: /budget tokens N sets the session's budget through the
// harness (which records it); a word that is no amount is refused before anything is sent.
func TestSlashBudgetChangesTheBudget(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.slash("budget", "tokens lots") // said at once (its command only fades the message)
	if !m.info.MessageErr || !strings.Contains(m.info.Message, "a token budget is a number of tokens") {
		t.Fatalf("/budget tokens lots says %q", m.info.Message)
	}
	m.Update(m.slash("budget", "tokens 5k")())
	s, err := m.c.Session(bg, m.current())
	if err != nil || s.Settings[api.SettingBudgetTokens] != "5000" {
		t.Fatalf("/budget tokens 5k did not set the budget: %v %v", s, err)
	}
	m.Update(m.loadCmd(m.current())()) // the app folds the change from the stream; a test reads it again
	if m.slash("budget", ""); !strings.Contains(m.info.Message, "of 5000") {
		t.Fatalf("/budget does not say the budget: %q", m.info.Message)
	}
}
