package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/service"
	"exo/views"
)

// TestParseReplay reads /replay's words in any order; a word it does not know, or no executor
// and no model, is refused with the usage.
func TestParseReplay(t *testing.T) {
	req, err := parseReplay(`model= m2 @3 check='go test ./...' executor=codex yes`)
	if err != nil {
		t.Fatal(err)
	}
	if req.Model != "m2" || req.From != 3 || req.Check != "go test ./..." || req.Executor != "codex" || !req.AutoApprove {
		t.Fatalf("parsed %+v", req)
	}
	for _, bad := range []string{"", "check=true", "model=a please", "@x model=a"} {
		if _, err := parseReplay(bad); err == nil || !strings.Contains(err.Error(), "/replay") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestScoreboardKeepArchiveAndReplay drives the scoreboard of a real set of attempts: A keeps
// the selected attempt and archives the others in one step, R replays the original session's
// prompts under the selected attempt's model, a set that then scores like any other.
func TestScoreboardKeepArchiveAndReplay(t *testing.T) {
	t.Parallel()
	h, err := harness.Open(t.TempDir(), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	for _, name := range []string{"m1", "m2", "m3"} {
		p := filepath.Join(t.TempDir(), name+".yaml")
		if err := os.WriteFile(p, []byte("name: "+name+"\nturns:\n  - text: \"answer of "+name+"\"\n  - text: \"again "+name+"\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := h.RegisterModel(harness.ModelSpec{Name: name, Provider: "scripted", BaseURL: p}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "orig", Model: "m1"})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(h, service.Options{})
	t.Cleanup(func() { svc.Close() })
	ctx := context.Background()
	ts, err := svc.StartTurn(ctx, api.TurnRequest{Session: s.ID, Text: "first prompt"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.WaitTurn(ctx, s.ID, ts.ID); err != nil {
		t.Fatal(err)
	}
	set, err := svc.StartAttempts(ctx, api.AttemptsRequest{Session: s.ID, Models: []string{"m1", "m2", "m3"}, Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	set = setDone(t, svc, h, set.ID)

	m := New(svc, Options{Session: s.ID, Theme: "dark"})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 44})
	m.Update(m.attachCmd()())
	m.Update(m.scoreboardCmd(set.ID)())
	if _, ok := m.overlay.(*views.Scoreboard); !ok {
		t.Fatal("the scoreboard did not open")
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
	r := m.scoreRows[1]
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'A', Text: "A"})
	open, ok := cmd().(views.ScoreOpen)
	if !ok || !open.Keep || !open.Archive {
		t.Fatalf("A asked %#v", open)
	}
	_, cmd = m.Update(open)
	m.Update(cmd())
	if m.info.MessageErr || !strings.Contains(m.info.Message, "2 others archived") {
		t.Fatalf("after A: %q", m.info.Message)
	}
	after, err := svc.AttemptSet(ctx, set.ID)
	if err != nil || after.Kept != r.Session {
		t.Fatalf("kept %q (want %s): %v", after.Kept, r.Session, err)
	}
	for _, row := range after.Rows {
		se, err := h.Session(row.Session)
		if err != nil || se.Archived != (row.Session != r.Session) {
			t.Errorf("%s archived %v: %v", row.Name, se.Archived, err)
		}
	}

	m.Update(m.scoreboardCmd(set.ID)())
	req := m.replayOf(m.scoreRows[2])
	if req.Session != s.ID || req.Model != "m3" || req.From != 0 {
		t.Fatalf("R asks for %+v", req)
	}
	_, cmd = m.Update(views.ScoreOpen{Row: 2, Replay: true})
	if cmd == nil || m.overlay != nil {
		t.Fatal("R did not close the scoreboard and start a replay")
	}
	started, ok := m.replayCmd(req)().(attemptsStartedMsg)
	if !ok || !started.set.Replay || len(started.set.Rows) != 1 || started.set.Rows[0].Model != "m3" {
		t.Fatalf("the replay's set: %+v", started)
	}
	m.Update(started)
	if m.scoreSet != started.set.ID {
		t.Fatalf("the app shows set %s, not the replay's %s", m.scoreSet, started.set.ID)
	}
	done := setDone(t, svc, h, started.set.ID)
	if done.Rows[0].Status != api.AttemptDone || done.Original == nil {
		t.Fatalf("the replay ended %+v", done.Rows[0])
	}
}

// setDone waits on the log (never on time) until every member of a set has ended.
func setDone(t *testing.T, svc *service.Service, h *harness.Harness, id string) api.AttemptSet {
	t.Helper()
	ch, stop := h.SubscribeChanges(256)
	defer stop()
	for {
		set, err := svc.AttemptSet(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if set.Done() {
			return set
		}
		<-ch
	}
}
