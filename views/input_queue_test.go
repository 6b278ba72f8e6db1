package views

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestInputSteerKey: ctrl+s sends the prompt marked to steer the running turn; enter does not.
func TestInputSteerKey(t *testing.T) {
	in := newTestInput()
	typeText(in, "use tabs")
	_, cmd := in.Update(tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl})
	if got := run(cmd); got != (SubmitMsg{Text: "use tabs", Steer: true}) {
		t.Fatalf("ctrl+s sent %#v", got)
	}
	if in.Value() != "" {
		t.Fatalf("not cleared: %q", in.Value())
	}
}

// TestInputTakeBackQueued: ↑ on an empty prompt while prompts are queued asks to take the
// newest back; with text typed, or with nothing queued, ↑ recalls history as before.
func TestInputTakeBackQueued(t *testing.T) {
	in := newTestInput()
	in.SetHistory([]string{"earlier"})
	in.SetQueued([]QueuedLine{{Text: "then this"}})
	if _, cmd := in.Update(press("up")); run(cmd) != (TakeBackQueuedMsg{}) {
		t.Fatal("↑ on an empty prompt did not take back the queued prompt")
	}
	in.SetQueued(nil)
	in.Update(press("up"))
	if in.Value() != "earlier" {
		t.Fatalf("↑ with nothing queued: %q, want the history", in.Value())
	}
}

// TestInputShowsQueued: queued prompts are listed above the editor, one line each, the input
// grows by as many lines, and the hint says what enter and ctrl+s do while a turn runs.
func TestInputShowsQueued(t *testing.T) {
	in := newTestInput()
	h := in.Height(60)
	in.SetBusy(true)
	in.SetQueued([]QueuedLine{{Text: "first\nsecond line"}, {Text: "steer me", Steer: true}})
	if in.Height(60) != h+2 {
		t.Fatalf("height %d, want %d", in.Height(60), h+2)
	}
	in.SetSize(60, in.Height(60))
	v := ansi.Strip(in.View())
	for _, want := range []string{"⏸ queued  first second line", "↪ steer   steer me", "enter queue"} {
		if !strings.Contains(v, want) {
			t.Errorf("missing %q in\n%s", want, v)
		}
	}
	in.SetQueued([]QueuedLine{{Text: "1"}, {Text: "2"}, {Text: "3"}, {Text: "4"}, {Text: "5"}})
	in.SetSize(60, in.Height(60))
	if v := ansi.Strip(in.View()); !strings.Contains(v, "… 2 more queued") || strings.Contains(v, "queued  1") {
		t.Errorf("five queued:\n%s", v)
	}
}
