package views

import (
	"math/rand"
	"testing"

	tea "charm.land/bubbletea/v2"

	"exo/themes"
)

// TestRandomKeysKeepPanesSane drives every pane with random keys, wheel
// events, ticks and resizes, checking each frame fits its size.
func TestRandomKeysKeepPanesSane(t *testing.T) {
	keys := []string{"j", "k", "g", "G", "pgup", "pgdown", "enter", "space", "esc", "[", "]", "/", "t", "o", "backspace", "up", "down", "f", "r", "n", "s", "h", "l", "tab", "alt+enter", "!", "x"}
	rng := rand.New(rand.NewSource(1))
	for name, build := range goldenPanes {
		c := NewCommon(themes.Dark())
		p, ok := build(c, 100).(sizer)
		if !ok {
			continue
		}
		w, h := 0, 0
		for step := 0; step < 300; step++ {
			if step%25 == 0 {
				w, h = 1+rng.Intn(120), 1+rng.Intn(40)
				p.SetSize(w, h)
			}
			var msg tea.Msg
			switch rng.Intn(10) {
			case 0:
				msg = SpinnerTickMsg{}
			case 1:
				msg = tea.MouseWheelMsg{Button: tea.MouseWheelUp}
			case 2:
				msg = StreamDeltaMsg{Text: "more *text* 日本\n\n"}
			default:
				msg = press(keys[rng.Intn(len(keys))])
			}
			p.Update(msg)
			view := p.View()
			if overlayPane(name) {
				checkMaxWidth(t, view, w, h)
				continue
			}
			if h > 0 {
				checkSize(t, view, w, h)
			}
			if t.Failed() {
				t.Fatalf("%s broke at step %d after %T", name, step, msg)
			}
		}
	}
}
