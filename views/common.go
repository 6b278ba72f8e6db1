package views

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"exo/themes"
)

// Common is the one bundle of dependencies every pane shares.
type Common struct {
	Styles *themes.Styles // Styles is the active theme.
	Keys   GlobalKeyMap   // Keys are the app-wide bindings shown in help.
	gen    int            // gen counts theme changes so panes drop render caches.
}

// NewCommon returns a Common with the given theme and the default global keys.
func NewCommon(st *themes.Styles) *Common {
	if st == nil {
		st = themes.Dark()
	}
	return &Common{Styles: st, Keys: DefaultGlobalKeyMap(), gen: 1}
}

// SetStyles switches the theme; panes notice and drop their render caches.
func (c *Common) SetStyles(st *themes.Styles) {
	c.Styles = st
	c.gen++
}

// Generation returns a counter that changes whenever the theme changes.
func (c *Common) Generation() int { return c.gen }

// Pane is the contract every pane component fulfils.
type Pane interface {
	// Update handles a message and returns the pane and a command.
	Update(msg tea.Msg) (Pane, tea.Cmd)
	// View renders the pane at exactly its size.
	View() string
	// SetSize sets the outer size of the pane, frame included.
	SetSize(w, h int)
	// Focus gives the pane keyboard focus.
	Focus()
	// Blur takes keyboard focus away.
	Blur()
	// Focused reports whether the pane has focus.
	Focused() bool
	// ShortHelp lists the pane's main bindings.
	ShortHelp() []key.Binding
	// FullHelp lists all the pane's bindings in columns.
	FullHelp() [][]key.Binding
}

// base holds the state every pane shares: dependencies, size and focus.
type base struct {
	common  *Common
	width   int
	height  int
	focused bool
}

// SetSize sets the outer size of the pane.
func (b *base) SetSize(w, h int) { b.width, b.height = max(w, 0), max(h, 0) }

// Size returns the outer size of the pane.
func (b *base) Size() (int, int) { return b.width, b.height }

// Focus gives the pane keyboard focus.
func (b *base) Focus() { b.focused = true }

// Blur takes keyboard focus away.
func (b *base) Blur() { b.focused = false }

// Focused reports whether the pane has focus.
func (b *base) Focused() bool { return b.focused }

// styles returns the active theme.
func (b *base) styles() *themes.Styles { return b.common.Styles }

// inner returns the content size inside the pane frame.
func (b *base) inner() (int, int) { return max(b.width-2, 0), max(b.height-2, 0) }

// emit returns a command that delivers msg.
func emit(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// content prepares third-party text (tool output) for display: under a
// colourless theme its own colours are removed too.
func (b *base) content(s string) string {
	if b.common.Styles.Palette.Mono {
		return stripToPlain(s)
	}
	return s
}
