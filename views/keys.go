package views

import "charm.land/bubbles/v2/key"

// GlobalKeyMap holds the app-wide bindings; the app routes them before panes.
type GlobalKeyMap struct {
	NextPane key.Binding // NextPane moves focus forward.
	PrevPane key.Binding // PrevPane moves focus back.
	Zoom     key.Binding // Zoom toggles the focused pane full screen.
	Help     key.Binding // Help toggles the key help.
	Cancel   key.Binding // Cancel stops the running turn; twice leaves.
	Quit     key.Binding // Quit leaves exo.
	Mouse    key.Binding // Mouse captures the mouse (wheel scrolls panes) or releases it (the terminal selects text).
}

// DefaultGlobalKeyMap returns the default app-wide bindings.
func DefaultGlobalKeyMap() GlobalKeyMap {
	return GlobalKeyMap{
		NextPane: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		PrevPane: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "prev pane")),
		Zoom:     key.NewBinding(key.WithKeys("z"), key.WithHelp("alt+z", "zoom pane")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Cancel:   key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "cancel (twice: quit)")),
		Quit:     key.NewBinding(key.WithKeys("ctrl+q"), key.WithHelp("ctrl+q", "quit")),
		Mouse:    key.NewBinding(key.WithKeys("alt+m", "f2"), key.WithHelp("alt+m", "mouse on/off")),
	}
}

// ShortHelp lists the main global bindings.
func (k GlobalKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.NextPane, k.Zoom, k.Help, k.Cancel}
}

// FullHelp lists all global bindings in two short columns (they fit small terminals).
func (k GlobalKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.NextPane, k.PrevPane, k.Zoom}, {k.Help, k.Quit, k.Cancel, k.Mouse}}
}

// ScrollKeyMap holds the scrolling bindings shared by list-like panes.
type ScrollKeyMap struct {
	Up       key.Binding // Up moves up one line or row.
	Down     key.Binding // Down moves down one line or row.
	PageUp   key.Binding // PageUp moves up a page.
	PageDown key.Binding // PageDown moves down a page.
	Top      key.Binding // Top jumps to the start.
	Bottom   key.Binding // Bottom jumps to the end.
}

// DefaultScrollKeyMap returns j/k, PgUp/PgDn and g/G scrolling.
func DefaultScrollKeyMap() ScrollKeyMap {
	return ScrollKeyMap{
		Up:       key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
	}
}

// bindings lists the scroll bindings in one column.
func (k ScrollKeyMap) bindings() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
}
