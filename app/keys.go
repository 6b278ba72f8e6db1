package app

import (
	"strings"

	"charm.land/bubbles/v2/key"

	"exo/views"
)

// applyKeys rebinds the app keys the configuration remaps (action → key names); the help
// shows the new keys. Unknown actions are ignored (the configuration warned about them).
func applyKeys(c *views.Common, in *views.Input, keys map[string][]string) {
	bind := map[string]*key.Binding{
		"next_pane": &c.Keys.NextPane, "prev_pane": &c.Keys.PrevPane, "zoom": &c.Keys.Zoom, "help": &c.Keys.Help,
		"quit": &c.Keys.Quit, "mouse": &c.Keys.Mouse, "editor": &in.Keys.Editor, "newline": &in.Keys.Newline,
		"paste_image": &in.Keys.PasteImage,
	}
	for action, names := range keys {
		b := bind[action]
		if b == nil || len(names) == 0 {
			continue
		}
		b.SetKeys(names...)
		b.SetHelp(strings.Join(names, "/"), b.Help().Desc)
	}
}
