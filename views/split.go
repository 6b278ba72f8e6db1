package views

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// MaxSplit is the most conversations the split view shows: up to SplitRow side by side, more
// (a set of attempts) as a grid of two rows.
const MaxSplit = 8

// SplitRow is the most conversations the split view puts side by side in one row.
const SplitRow = 4

// SplitKeyMap holds the split view's own bindings.
type SplitKeyMap struct {
	Left  key.Binding // Left focuses the conversation on the left.
	Right key.Binding // Right focuses the conversation on the right.
}

// Split shows two to four conversation panes side by side, five to eight as a grid of two
// rows; keys go to the focused one, and every pane receives streaming and tick messages the
// app routes to it by session.
type Split struct {
	base
	Keys  SplitKeyMap // Keys are the view's bindings.
	panes []*Conversation
	cur   int
}

// NewSplit returns an empty split view.
func NewSplit(c *Common) *Split {
	return &Split{base: base{common: c}, Keys: SplitKeyMap{
		Left:  key.NewBinding(key.WithKeys("h", "left"), key.WithHelp("h/←", "left session")),
		Right: key.NewBinding(key.WithKeys("l", "right"), key.WithHelp("l/→", "right session")),
	}}
}

// SetPanes sets the conversations shown (at most MaxSplit are kept).
func (s *Split) SetPanes(panes ...*Conversation) {
	s.panes = panes[:min(len(panes), MaxSplit)]
	for _, p := range s.panes {
		p.KeepTitleTail(true)
	}
	s.cur = min(s.cur, max(len(s.panes)-1, 0))
	s.SetSize(s.width, s.height)
	s.syncFocus()
}

// Panes returns the conversations shown.
func (s *Split) Panes() []*Conversation { return s.panes }

// Current returns the index of the focused conversation.
func (s *Split) Current() int { return s.cur }

// grid returns how the panes are laid out: rows of at most cols panes each.
func (s *Split) grid() (rows, cols int) {
	n := len(s.panes)
	if n <= SplitRow || s.height < 6 { // two rows of frames need room for two frames' borders
		return 1, max(n, 1)
	}
	return 2, (n + 1) / 2
}

// SetSize divides the width between the panes of a row, and the height between the rows.
func (s *Split) SetSize(w, h int) {
	s.base.SetSize(w, h)
	rows, cols := s.grid()
	for i, p := range s.panes {
		r, c := i/cols, i%cols
		inRow := min(cols, len(s.panes)-r*cols)
		p.SetSize(share(w, inRow, c), share(h, rows, r))
	}
}

// share is the i-th of n parts of total, the last taking what division leaves.
func share(total, n, i int) int {
	part := total / n
	if i == n-1 {
		return total - part*(n-1)
	}
	return part
}

// Focus focuses the split view and its current pane.
func (s *Split) Focus() {
	s.base.Focus()
	s.syncFocus()
}

// Blur blurs the split view and its panes.
func (s *Split) Blur() {
	s.base.Blur()
	s.syncFocus()
}

// syncFocus focuses only the current pane, and only when the view has focus.
func (s *Split) syncFocus() {
	for i, p := range s.panes {
		if s.focused && i == s.cur {
			p.Focus()
		} else {
			p.Blur()
		}
	}
}

// Update moves focus between panes on h/l; keys go to the focused pane and
// spinner ticks to all.
func (s *Split) Update(msg tea.Msg) (Pane, tea.Cmd) {
	if len(s.panes) == 0 {
		return s, nil
	}
	switch msg := msg.(type) {
	case SpinnerTickMsg:
		for _, p := range s.panes {
			p.Update(msg)
		}
		return s, nil
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, s.Keys.Left):
			s.cur = (s.cur + len(s.panes) - 1) % len(s.panes)
			s.syncFocus()
			return s, nil
		case key.Matches(msg, s.Keys.Right):
			s.cur = (s.cur + 1) % len(s.panes)
			s.syncFocus()
			return s, nil
		}
	}
	_, cmd := s.panes[s.cur].Update(msg)
	return s, cmd
}

// View joins the panes side by side, row under row.
func (s *Split) View() string {
	if len(s.panes) == 0 {
		return block(nil, s.width, s.height)
	}
	_, cols := s.grid()
	var out []string
	for start := 0; start < len(s.panes); start += cols {
		row := s.panes[start:min(start+cols, len(s.panes))]
		views := make([][]string, len(row))
		height := 0
		for i, p := range row {
			views[i] = strings.Split(p.View(), "\n")
			height = max(height, len(views[i]))
		}
		for y := range height {
			var b strings.Builder
			for _, v := range views {
				if y < len(v) {
					b.WriteString(v[y])
				}
			}
			out = append(out, b.String())
		}
	}
	return block(out, s.width, s.height) // exactly the view's size, whatever room the panes had
}

// ShortHelp lists the split bindings and the focused pane's main ones.
func (s *Split) ShortHelp() []key.Binding {
	b := []key.Binding{s.Keys.Left, s.Keys.Right}
	if len(s.panes) > 0 {
		b = append(b, s.panes[s.cur].ShortHelp()...)
	}
	return b
}

// FullHelp lists the split bindings and the focused pane's.
func (s *Split) FullHelp() [][]key.Binding {
	b := [][]key.Binding{{s.Keys.Left, s.Keys.Right}}
	if len(s.panes) > 0 {
		b = append(b, s.panes[s.cur].FullHelp()...)
	}
	return b
}
