package app

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness"
	"exo/harness/api"
)

// selectFromTop moves the sessions pane's selection to the top, then to the session named name.
func selectFromTop(t *testing.T, m *Model, name string) {
	t.Helper()
	m.setFocus(focusSiblings)
	for range len(m.siblings.Rows()) {
		m.Update(tea.KeyPressMsg{Code: 'k', Mod: tea.ModAlt})
	}
	selectRow(t, m, name)
}

// press sends a key and runs what it asks for.
func press(m *Model, k rune) {
	_, cmd := m.Update(tea.KeyPressMsg{Code: k, Mod: tea.ModAlt}) // a pane's key: alt+letter outside the prompt
	feed(m, cmd, 2)
}

// listed reports whether the daemon still lists a session by name (archived ones included).
func listed(t *testing.T, m *Model, name string) (found, archived bool) {
	t.Helper()
	all, err := m.c.ListSessions(bg)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range all {
		if in.Session.Name == name {
			return true, in.Session.Archived
		}
	}
	return false, false
}

// TestSiblingsArchiveAndDelete: in the sessions pane, a asks before archiving and x before
// deleting; n keeps the session, y archives it (it leaves the pane) or deletes it (the daemon
// no longer lists it); the session shown cannot be deleted from the pane.
func TestSiblingsArchiveAndDelete(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	for _, n := range []string{"keepme", "gone"} {
		if _, err := m.c.NewSession(bg, api.NewSessionRequest{Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	m.Update(m.siblingsCmd()())

	selectFromTop(t, m, "keepme")
	press(m, 'a')
	if m.overlay == nil || !strings.Contains(ansi.Strip(m.render()), "Archive keepme?") {
		t.Fatalf("a did not ask:\n%s", ansi.Strip(m.render()))
	}
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'n', Text: "n"})
	feed(m, cmd, 3)
	if found, archived := listed(t, m, "keepme"); m.overlay != nil || !found || archived {
		t.Fatalf("n: overlay %v, archived %v", m.overlay != nil, archived)
	}
	press(m, 'a')
	_, cmd = m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	feed(m, cmd, 4)
	if _, archived := listed(t, m, "keepme"); !archived || m.overlay != nil {
		t.Fatal("y did not archive keepme")
	}
	for _, r := range m.siblings.Rows() {
		if r.Name == "keepme" {
			t.Fatal("the archived session is still in the pane")
		}
	}
	if !strings.Contains(m.info.Message, "archived keepme") {
		t.Fatalf("status: %q", m.info.Message)
	}

	selectFromTop(t, m, "gone")
	press(m, 'x')
	if s := ansi.Strip(m.render()); !strings.Contains(s, "Delete gone?") || !strings.Contains(s, "events stay in the log") {
		t.Fatalf("x did not ask:\n%s", s)
	}
	_, cmd = m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
	feed(m, cmd, 4)
	if found, _ := listed(t, m, "gone"); found {
		t.Fatal("y did not delete the session")
	}
	if !strings.Contains(m.info.Message, "deleted gone") {
		t.Fatalf("status: %q", m.info.Message)
	}

	selectFromTop(t, m, "layout") // the session shown
	_, cmd = m.Update(tea.KeyPressMsg{Code: 'x', Mod: tea.ModAlt})
	feed(m, cmd, 2)
	if m.overlay != nil || !m.info.MessageErr || !strings.Contains(m.info.Message, "switch to another") {
		t.Fatalf("deleting the shown session: overlay %v, status %q", m.overlay != nil, m.info.Message)
	}
	if found, _ := listed(t, m, "layout"); !found {
		t.Fatal("the shown session was deleted")
	}
}

// TestShownSessionDeletedElsewhere: another exo removes the session the app shows; the app says
// so at once (status, title, input), stops reloading it, and a switch to another session clears
// the notice.
func TestShownSessionDeletedElsewhere(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	id := m.current()
	other, err := m.c.NewSession(bg, api.NewSessionRequest{Name: "other"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := m.c.State(bg, m.session.Branch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.c.RemoveSession(bg, id); err != nil { // what exo session rm does from another terminal
		t.Fatal(err)
	}
	evs, err := m.c.Events(bg, m.session.Branch, st.Head+1, 0)
	if err != nil || len(evs) == 0 || evs[len(evs)-1].Type != harness.TypeSessionDeleted {
		t.Fatalf("the removal's event: %v %v", evs, err)
	}
	m.Update(noticesMsg{[]harness.Notice{{Session: id, Events: evs}}})
	screen := ansi.Strip(m.render())
	for _, want := range []string{"layout (deleted)", "this session was deleted elsewhere: /new starts one", "deleted by another exo"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the screen does not say %q:\n%s", want, screen)
		}
	}
	if !m.gone {
		t.Fatal("the app still treats the session as usable")
	}
	m.Update(m.siblingsCmd()())
	if strings.Contains(ansi.Strip(m.render()), "○ layout") {
		t.Fatal("the siblings pane still lists the deleted session")
	}
	m.Update(m.loadCmd(other.ID)())
	if m.gone || strings.Contains(ansi.Strip(m.render()), "deleted elsewhere") {
		t.Fatal("switching to another session kept the deleted session's notice")
	}
}

// TestDeleteKeepsCursorOnNeighbour: after x deletes a session from the sessions pane, the
// selection is on the row that took its place (the one before it when it was the last), not on
// the top row.
func TestDeleteKeepsCursorOnNeighbour(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	for _, n := range []string{"one", "two", "three", "four"} {
		if _, err := m.c.NewSession(bg, api.NewSessionRequest{Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	m.Update(m.siblingsCmd()())
	names := func() []string {
		var out []string
		for _, r := range m.siblings.Rows() {
			out = append(out, r.Name)
		}
		return out
	}
	del := func(name string) {
		t.Helper()
		selectFromTop(t, m, name)
		press(m, 'x')
		_, cmd := m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"})
		feed(m, cmd, 4)
		if found, _ := listed(t, m, name); found {
			t.Fatalf("%s was not deleted", name)
		}
	}
	before := names()
	i := indexOfName(before, "two")
	if i <= 0 || i >= len(before)-1 {
		t.Fatalf("want two in the middle of %v", before)
	}
	del("two")
	if r, _ := m.siblings.Selected(); r.Name != before[i+1] {
		t.Fatalf("after deleting two of %v the cursor is on %q, want %q", before, r.Name, before[i+1])
	}
	rows := names()
	last := rows[len(rows)-1]
	if last == "layout" {
		t.Skipf("the shown session is last in %v", rows)
	}
	del(last)
	if r, _ := m.siblings.Selected(); r.Name != rows[len(rows)-2] {
		t.Fatalf("after deleting the last row %s of %v the cursor is on %q", last, rows, r.Name)
	}
}

// indexOfName returns where name is in names, or -1.
func indexOfName(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}
