package app

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/service"
)

// TestStoreBannerTeatest drives the running app: the daemon's notice that its store does not
// answer puts the banner over the top line, the notice that it answers again removes it, and
// an activity snapshot older than the notice does not bring it back.
func TestStoreBannerTeatest(t *testing.T) {
	m := newTestModel(t)
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(60, 20))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("slow path")) },
		teatest.WithDuration(10*time.Second))
	down := time.Now()
	tm.Send(noticesMsg{batch: []api.Notice{{Store: &api.StoreState{Since: down, Why: "etcd: context deadline exceeded"}}}})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("the store is unreachable")) },
		teatest.WithDuration(10*time.Second))
	tm.Send(noticesMsg{batch: []api.Notice{{Store: &api.StoreState{Up: true, Since: down.Add(time.Second)}}}})
	tm.Send(activityMsg{act: api.Activity{Store: &api.StoreState{Since: down, Why: "stale"}}})
	tm.Send(tea.KeyPressMsg{Code: 'q', Mod: tea.ModCtrl})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	if fm.storeDown != nil || strings.Contains(fm.render(), "unreachable") {
		t.Fatalf("the banner stays after the store answered again: %+v", fm.storeDown)
	}
}

// TestStoreBannerOverTheTopLine: the banner takes the top line only; the screen keeps its size
// at every size the layout test covers.
func TestStoreBannerOverTheTopLine(t *testing.T) {
	m := newTestModel(t)
	for _, sz := range [][2]int{{60, 20}, {200, 60}, {40, 10}} {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		before := strings.Split(m.render(), "\n")
		m.setStore(&api.StoreState{Since: time.Now(), Why: "no quorum"})
		after := strings.Split(m.render(), "\n")
		if len(after) != sz[1] || !strings.Contains(after[0], "the store is unreachable") {
			t.Fatalf("%dx%d: %d lines, top %q", sz[0], sz[1], len(after), after[0])
		}
		for i := 1; i < len(after); i++ {
			if after[i] != before[i] {
				t.Fatalf("%dx%d: line %d changed under the banner", sz[0], sz[1], i)
			}
		}
		m.setStore(&api.StoreState{Up: true, Since: time.Now()})
	}
}

// downClient fails the reads an attach makes while down is set, as a daemon whose shared store
// does not answer does.
type downClient struct {
	api.Client
	down atomic.Bool
}

func (c *downClient) Session(ctx context.Context, id string) (*api.Session, error) {
	if c.down.Load() {
		return nil, errors.New("the store is unreachable: etcd: context deadline exceeded")
	}
	return c.Client.Session(ctx, id)
}

// TestAppStartedInAnOutageShowsItsSessionWhenTheStoreIsBack: an app whose attach failed while
// the store was down (it shows no session) attaches again when the daemon says the store is
// back, and an app showing a session reads it again; before, the first stayed empty.
func TestAppStartedInAnOutageShowsItsSessionWhenTheStoreIsBack(t *testing.T) {
	h, err := harness.Open(t.TempDir(), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	s, _ := h.NewSession(harness.NewSessionOptions{Name: "outage"})
	h.Append(s.ID, harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: "written before the outage"}))
	svc := service.New(h, service.Options{})
	t.Cleanup(func() { svc.Close() })
	c := &downClient{Client: svc}
	c.down.Store(true)
	m := New(c, Options{Session: s.ID, Theme: "dark"})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Update(m.attachCmd()())
	down := time.Now()
	m.Update(noticesMsg{batch: []api.Notice{{Store: &api.StoreState{Since: down, Why: "no quorum"}}}})
	if m.session != nil || !strings.Contains(m.render(), "the store is unreachable") {
		t.Fatalf("during the outage: session %v", m.session)
	}
	c.down.Store(false)
	_, cmd := m.Update(noticesMsg{batch: []api.Notice{{Store: &api.StoreState{Up: true, Since: down.Add(time.Second)}}}})
	runCmds(m, cmd)
	if m.session == nil || m.session.ID != s.ID || !strings.Contains(m.render(), "written before the outage") {
		t.Fatalf("after the store came back: session %v\n%s", m.session, m.render())
	}
}

// runCmds runs cmd and what its messages return, batches included, as the program would (the
// watch's long reads left out: they block).
func runCmds(m *Model, cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0 && n < 64; n++ {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		if b, ok := msg.(tea.BatchMsg); ok {
			queue = append(queue, b...)
			continue
		}
		switch msg.(type) {
		case sessionLoadedMsg, siblingsMsg:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}
