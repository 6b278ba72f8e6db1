package views

// View renders the items in view inside the pane frame.
func (c *Conversation) View() string {
	w, h := c.viewSize()
	body := make([]string, 0, h+1)
	if c.preview > 0 {
		body = append(body, c.banner(w))
	}
	if len(c.entries) == 0 {
		empty := c.empty
		if empty == "" {
			empty = "no messages yet"
		}
		body = append(body, wrapStyled(c.styles().Text.Muted, empty, w)...)
	} else {
		body = append(body, c.visible(w, h)...)
	}
	return frame(c.styles(), c.focused, c.frameTitle(), c.info(), body, c.width, c.height)
}
