package views

import "charm.land/bubbles/v2/help"

// Every pane is a Pane and can feed bubbles/help.
var (
	_ Pane = (*Conversation)(nil)
	_ Pane = (*Input)(nil)
	_ Pane = (*Timeline)(nil)
	_ Pane = (*Siblings)(nil)
	_ Pane = (*Sandbox)(nil)
	_ Pane = (*Approval)(nil)
	_ Pane = (*Confirm)(nil)
	_ Pane = (*Detail)(nil)
	_ Pane = (*Help)(nil)
	_ Pane = (*Split)(nil)

	_ help.KeyMap = (Pane)(nil)
	_ help.KeyMap = GlobalKeyMap{}
)
