package app

import (
	"slices"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// TestConfiguredKeysRebindTheApp: the configuration's keys replace the defaults (the old key no
// longer matches, the help names the new one), and unknown actions change nothing.
func TestConfiguredKeysRebindTheApp(t *testing.T) {
	m := New(nil, Options{Keys: map[string][]string{"quit": {"ctrl+d"}, "zoom": {"Z", "f11"}, "newline": {"ctrl+n"}, "fly": {"x"}}})
	g := m.common.Keys
	if !slices.Equal(g.Quit.Keys(), []string{"ctrl+d"}) || g.Quit.Help().Key != "ctrl+d" {
		t.Fatalf("quit: %v %q", g.Quit.Keys(), g.Quit.Help().Key)
	}
	if !key.Matches(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}, g.Quit) || key.Matches(tea.KeyPressMsg{Code: 'q', Mod: tea.ModCtrl}, g.Quit) {
		t.Fatal("ctrl+d must quit and ctrl+q no longer")
	}
	if g.Zoom.Help().Key != "Z/f11" || !slices.Equal(m.input.Keys.Newline.Keys(), []string{"ctrl+n"}) {
		t.Fatalf("zoom %q newline %v", g.Zoom.Help().Key, m.input.Keys.Newline.Keys())
	}
	if d := New(nil, Options{}); !slices.Equal(d.common.Keys.Quit.Keys(), []string{"ctrl+q"}) {
		t.Fatal("defaults changed without configuration")
	}
}
