package app

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/service"
	"exo/views"
)

// TestPickerRowsThroughTheService lists real sessions for exo -r: this directory's first
// (the one prompted last on top), then another directory's; an archived session is left out.
func TestPickerRowsThroughTheService(t *testing.T) {
	h, err := harness.Open(t.TempDir(), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	here, there := t.TempDir(), t.TempDir()
	mk := func(name, ws string) *harness.Session {
		s, err := h.NewSession(harness.NewSessionOptions{Name: name, Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	other := mk("other", there)
	older := mk("older", here)
	newer := mk("newer", here)
	hidden := mk("hidden", here)
	svc := service.New(h, service.Options{})
	t.Cleanup(func() { svc.Close() })
	ctx := context.Background()
	for _, s := range []*harness.Session{other, newer, older} { // older is prompted last
		time.Sleep(5 * time.Millisecond)
		if _, err := svc.Say(ctx, s.ID, "prompt of "+s.Name, "user"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.ArchiveSession(ctx, hidden.ID, true); err != nil {
		t.Fatal(err)
	}
	all, err := svc.ListSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows := PickerRows(all, here, time.Now())
	var names []string
	for _, r := range rows {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"older", "newer", "other"}) {
		t.Fatalf("order %q", names)
	}
	if !rows[0].Here || rows[2].Here || rows[0].Prompt != "prompt of older" || rows[2].Dir != projectLabel(other) {
		t.Fatalf("rows %+v", rows)
	}

	m := newPickModel(PickOptions{Workspace: here, Theme: "dark"}, rows)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 20})
	if v := ansi.Strip(m.View().Content); !strings.Contains(v, "prompt of newer") || !m.View().AltScreen {
		t.Fatalf("picker screen:\n%s", v)
	}
	for _, k := range "oth" {
		m.Update(tea.KeyPressMsg{Code: k, Text: string(k)})
	}
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	_, quit := m.Update(cmd())
	if m.chosen != other.ID || quit == nil {
		t.Fatalf("chose %q, want %q", m.chosen, other.ID)
	}
	if _, ok := quit().(tea.QuitMsg); !ok {
		t.Fatal("the picker did not quit after the choice")
	}
}

// TestShortAge renders ages in at most four cells.
func TestShortAge(t *testing.T) {
	for d, want := range map[time.Duration]string{-time.Second: "0s", 45 * time.Second: "45s", 12 * time.Minute: "12m",
		5 * time.Hour: "5h", 47 * time.Hour: "47h", 72 * time.Hour: "3d", 30 * 24 * time.Hour: "4w", 100 * 365 * 24 * time.Hour: "999w"} {
		if got := shortAge(d); got != want || len(got) > 4 {
			t.Errorf("shortAge(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestPlainExoOpensTheMostRecentlyUsed: the app opened with no session takes the directory's
// most recently used one (a prompt makes an older session newer), never an archived one.
func TestPlainExoOpensTheMostRecentlyUsed(t *testing.T) {
	h, err := harness.Open(t.TempDir(), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	ws := t.TempDir()
	svc := service.New(h, service.Options{})
	t.Cleanup(func() { svc.Close() })
	ctx := context.Background()
	var ids []string
	for _, n := range []string{"first", "second", "archived"} {
		s, err := h.NewSession(harness.NewSessionOptions{Name: n, Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := svc.ArchiveSession(ctx, ids[2], true); err != nil {
		t.Fatal(err)
	}
	got, err := pickSession(svc, Options{Workspace: ws})
	if err != nil || got.ID != ids[1] {
		t.Fatalf("opened %v (%v), want second", got, err)
	}
	if _, err := svc.Say(ctx, ids[0], "back to the first", "user"); err != nil {
		t.Fatal(err)
	}
	if got, err = pickSession(svc, Options{Workspace: ws}); err != nil || got.ID != ids[0] {
		t.Fatalf("after a prompt to first, opened %v (%v)", got.Name, err)
	}
}

// TestSlashResume: /resume opens the picker over the app; typing filters it, enter switches to
// the chosen session, and esc on a second /resume closes it, leaving the session shown.
func TestSlashResume(t *testing.T) {
	m := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	other, err := m.c.NewSession(bg, api.NewSessionRequest{Name: "elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	typeKeys := func(s string) {
		for _, k := range s {
			_, cmd := m.Update(tea.KeyPressMsg{Code: k, Text: string(k)})
			feed(m, cmd, 3)
		}
	}
	enter := func() {
		_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
		feed(m, cmd, 4)
	}
	typeKeys("/resume")
	enter()
	if _, ok := m.overlay.(*views.Picker); !ok || !strings.Contains(ansi.Strip(m.render()), "Resume a session") {
		t.Fatalf("/resume did not open the picker:\n%s", ansi.Strip(m.render()))
	}
	typeKeys("elsew")
	enter()
	if m.overlay != nil || m.current() != other.ID {
		t.Fatalf("after enter: overlay %v, current %s, want %s", m.overlay != nil, m.current(), other.ID)
	}
	typeKeys("/resume")
	enter()
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	feed(m, cmd, 2)
	if m.overlay != nil || m.current() != other.ID {
		t.Fatalf("after esc: overlay %v, current %s", m.overlay != nil, m.current())
	}
}
