package app

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"exo/harness/api"
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
