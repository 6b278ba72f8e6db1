package app

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/service"
	"exo/store/etcdtest"
	"exo/views"
)

// etcdDaemon opens a harness and its service as daemon node on the cluster.
func etcdDaemon(t *testing.T, endpoints []string, node string) (*harness.Harness, *service.Service) {
	t.Helper()
	url := fmt.Sprintf("etcd://%s/team?node=%s&lease=2s", strings.Join(endpoints, ","), node)
	h, err := harness.Open(t.TempDir(), harness.Options{NoSync: true, Store: url})
	if err != nil {
		t.Fatal(err)
	}
	s := service.New(h, service.Options{})
	t.Cleanup(func() { s.Close(); h.Close() })
	return h, s
}

// selectRow moves the siblings pane's selection to the session named name.
func selectRow(t *testing.T, m *Model, name string) {
	t.Helper()
	m.setFocus(focusSiblings)
	for range len(m.siblings.Rows()) {
		if r, ok := m.siblings.Selected(); ok && r.Name == name {
			return
		}
		m.Update(tea.KeyPressMsg{Code: 'j', Mod: tea.ModAlt})
	}
	t.Fatalf("no row %s in %+v", name, m.siblings.Rows())
}

// TestRemoteSessionReadOnlyThenTakenOver runs the app on one daemon of a shared store: another
// daemon's session is marked with its node and live; enter shows it read-only with its events
// as they come; a prompt is refused and kept; once that daemon is gone the row says so, and T
// takes the session over.
func TestRemoteSessionReadOnlyThenTakenOver(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	ha, sa := etcdDaemon(t, c.Endpoints, "alpha")
	_, sb := etcdDaemon(t, c.Endpoints, "beta")
	one, err := sa.NewSession(bg, api.NewSessionRequest{Name: "one", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sa.Say(bg, one.ID, "hello from alpha", "test"); err != nil {
		t.Fatal(err)
	}
	mine, _ := sb.NewSession(bg, api.NewSessionRequest{Name: "mine", Workspace: t.TempDir()})
	w, err := sb.Watch(bg, api.WatchRequest{Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	m := New(sb, Options{Session: mine.ID, Theme: "dark"})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 44})
	m.Update(m.attachCmd()())
	m.Update(m.siblingsCmd()())
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "one@alpha") || !strings.Contains(screen, "live") {
		t.Fatalf("alpha's session is not marked with its node and live:\n%s", screen)
	}
	selectRow(t, m, "one")
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if sw, ok := cmd().(views.SwitchSession); ok {
		switchSession(m, sw.ID)
	}
	screen := ansi.Strip(m.render())
	if !strings.Contains(screen, "one @alpha · read-only") || !strings.Contains(screen, "hello from alpha") {
		t.Fatalf("enter on the remote row does not show it read-only:\n%s", screen)
	}
	// alpha's next event arrives live.
	if _, err := sa.Say(bg, one.ID, "second word from alpha", "test"); err != nil {
		t.Fatal(err)
	}
	m.Update(noticesMsg{[]harness.Notice{waitNotice(t, w, one.ID)}})
	m.Update(m.refreshCmd()())
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "second word from alpha") {
		t.Fatalf("alpha's new event is not shown:\n%s", screen)
	}
	m.submit("may I?") // (its command only fades the message)
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "it is read-only here") || m.input.Value() != "may I?" {
		t.Fatalf("a prompt to a remote session is not refused and kept (%q):\n%s", m.input.Value(), screen)
	}
	_, cmd = m.Update(tea.KeyPressMsg{Code: 'T', Mod: tea.ModAlt})
	m.Update(cmd()) // the refusal: said, its fade not run
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "which is alive") {
		t.Fatalf("T on a live daemon's session:\n%s", screen)
	}
	sa.Close()
	ha.Close() // alpha is gone
	m.Update(m.siblingsCmd()())
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, "gone") {
		t.Fatalf("the row of the gone daemon's session:\n%s", screen)
	}
	_, cmd = m.Update(tea.KeyPressMsg{Code: 'T', Mod: tea.ModAlt})
	take, ok := cmd().(views.TakeOver)
	if !ok || take.Refused != "" {
		t.Fatalf("T on a gone daemon's session: %#v", take)
	}
	m.Update(take)
	m.Update(m.takeOverCmd(take.ID)())
	switchSession(m, one.ID)
	screen = ansi.Strip(m.render())
	if strings.Contains(screen, "read-only") || m.session.Node != "" || !strings.Contains(screen, "second word from alpha") {
		t.Fatalf("after the take-over:\n%s", screen)
	}
	if s, err := sb.Session(bg, one.ID); err != nil || s.Node != "" {
		t.Fatalf("beta's record of the session: %+v %v", s, err)
	}
}

// waitNotice waits for a notice about a session.
func waitNotice(t *testing.T, w *api.Watcher, id string) harness.Notice {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case n := <-w.C:
			if n.Session == id && len(n.Events) > 0 {
				return n
			}
		case <-deadline:
			t.Fatalf("no notice about %s", id)
		}
	}
}
