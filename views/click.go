package views

import tea "charm.land/bubbletea/v2"

// Click selects the row at pane-local cell (x, y), the frame's top-left
// being (0, 0), and reports the new selection.
func (t *Timeline) Click(_, y int) tea.Cmd {
	i := t.top + y - 1
	if y < 1 || i >= t.Len() {
		return nil
	}
	return t.move(i - t.cursor)
}

// Click selects the session at pane-local cell (x, y); clicking the
// selected one asks to switch to it.
func (s *Siblings) Click(_, y int) tea.Cmd {
	i := s.top + y - 1
	if y < 1 || i >= len(s.rows) {
		return nil
	}
	if i == s.cursor {
		return emit(SwitchSession{ID: s.rows[i].ID})
	}
	s.cursor = i
	return nil
}

// Click at pane-local cell (x, y) selects the tool block drawn there and
// expands or collapses it.
func (c *Conversation) Click(_, y int) tea.Cmd {
	row := y - 1
	if c.preview > 0 {
		row--
	}
	if row < 0 || row >= len(c.lineItems) {
		return nil
	}
	i := c.lineItems[row]
	if c.entries[i].item.Kind != KindTool {
		return nil
	}
	c.setSel(i)
	c.toggle()
	return nil
}
