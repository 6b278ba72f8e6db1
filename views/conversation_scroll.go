package views

// linesOf returns the cached rendering of item i at width w.
func (c *Conversation) linesOf(i, w int) []string {
	e := c.entries[i]
	k := renderKey{w: w, ver: e.ver, gen: c.common.Generation()}
	if e.item.Streaming || e.item.Kind == KindTool && e.item.Status == ToolRunning {
		k.frame = c.frame
	}
	if e.lines == nil || e.key != k {
		e.lines, e.key = c.renderEntry(e, w), k
	}
	return e.lines
}

// Scroll moves the view by delta lines; reaching the end resumes following.
func (c *Conversation) Scroll(delta int) {
	w, h := c.viewSize()
	if len(c.entries) == 0 || w <= 0 {
		return
	}
	if c.follow {
		c.top = c.bottomAnchor(w, h)
	}
	c.follow = false
	if delta < 0 {
		c.up(-delta, w)
	} else {
		c.down(delta, w)
	}
	if c.linesBelow(w, h+1) <= h {
		c.follow = true
	}
}

// up moves the top anchor up by n lines.
func (c *Conversation) up(n, w int) {
	for n > 0 {
		if c.top.line >= n {
			c.top.line -= n
			return
		}
		n -= c.top.line
		if c.top.item == 0 {
			c.top.line = 0
			return
		}
		c.top.item--
		c.top.line = len(c.linesOf(c.top.item, w))
	}
}

// down moves the top anchor down by n lines.
func (c *Conversation) down(n, w int) {
	for n > 0 && c.top.item < len(c.entries) {
		rest := len(c.linesOf(c.top.item, w)) - c.top.line
		if rest > n {
			c.top.line += n
			return
		}
		n -= rest
		if c.top.item == len(c.entries)-1 {
			c.top.line += rest
			return
		}
		c.top = anchor{item: c.top.item + 1}
	}
}

// linesBelow counts lines from the top anchor to the end, up to limit.
func (c *Conversation) linesBelow(w, limit int) int {
	n := 0
	for i := c.top.item; i < len(c.entries) && n < limit; i++ {
		n += len(c.linesOf(i, w))
		if i == c.top.item {
			n -= c.top.line
		}
	}
	return n
}

// bottomAnchor is the top anchor that shows the last h lines.
func (c *Conversation) bottomAnchor(w, h int) anchor {
	n := 0
	for i := len(c.entries) - 1; i >= 0; i-- {
		l := len(c.linesOf(i, w))
		if n+l >= h {
			return anchor{item: i, line: n + l - h}
		}
		n += l
	}
	return anchor{}
}

// viewSize is the size of the scrolling area inside the frame.
func (c *Conversation) viewSize() (int, int) {
	w, h := c.inner()
	if c.width < 4 || c.height < 3 {
		w, h = c.width, c.height
	}
	if c.preview > 0 {
		h--
	}
	return w, max(h, 0)
}

// visible collects the h lines in view, from the top anchor or the bottom.
func (c *Conversation) visible(w, h int) []string {
	if c.follow {
		c.top = c.bottomAnchor(w, h)
	}
	out := make([]string, 0, h)
	c.shown = [2]int{c.top.item, c.top.item}
	c.lineItems = c.lineItems[:0]
	for i := c.top.item; i < len(c.entries) && len(out) < h; i++ {
		lines := c.linesOf(i, w)
		if i == c.top.item {
			lines = lines[min(c.top.line, len(lines)):]
		}
		n := min(len(lines), h-len(out))
		out = append(out, lines[:n]...)
		for range n {
			c.lineItems = append(c.lineItems, i)
		}
		c.shown[1] = i
	}
	return out
}

// selectTool moves the tool block selection by dir and scrolls it into view.
func (c *Conversation) selectTool(dir int) {
	i := c.sel
	if i < 0 {
		i = len(c.entries)
		if dir > 0 {
			i = -1
		}
	}
	for i += dir; i >= 0 && i < len(c.entries); i += dir {
		if k := c.entries[i].item.Kind; k == KindTool || k == KindThinking {
			c.setSel(i)
			c.reveal(i)
			return
		}
	}
}

// setSel marks item i as the selected tool block.
func (c *Conversation) setSel(i int) {
	if c.sel >= 0 && c.sel < len(c.entries) {
		c.entries[c.sel].selected = false
		c.entries[c.sel].ver++
	}
	c.sel = i
	c.entries[i].selected = true
	c.entries[i].ver++
}

// toggle expands or collapses the selected (or last) tool block.
func (c *Conversation) toggle() {
	if c.sel < 0 {
		c.selectTool(-1)
	}
	if c.sel < 0 {
		return
	}
	e := c.entries[c.sel]
	e.expanded = !e.expanded
	e.ver++
}

// Expanded reports whether tool block i is expanded.
func (c *Conversation) Expanded(i int) bool { return c.entries[i].expanded }

// SelectedTool returns the index of the selected tool block, or -1.
func (c *Conversation) SelectedTool() int { return c.sel }

// reveal scrolls so that item i starts in view if it does not already.
func (c *Conversation) reveal(i int) {
	w, h := c.viewSize()
	if c.follow {
		c.top = c.bottomAnchor(w, h)
	}
	if i > c.top.item && i <= c.shown[1] || i == c.top.item && c.top.line == 0 {
		return
	}
	c.follow, c.top, c.shown = false, anchor{item: i}, [2]int{i, i}
	if c.linesBelow(w, h+1) <= h {
		c.follow = true
	}
}
