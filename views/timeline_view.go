package views

import (
	"fmt"
	"strconv"
	"strings"
)

// View renders the visible rows only, whatever the history length.
func (t *Timeline) View() string {
	iw, ih := t.inner()
	if t.width < 4 || t.height < 3 {
		iw, ih = t.width, t.height
	}
	t.clamp()
	lines := make([]string, 0, ih)
	n := t.Len()
	lh := t.listHeight(ih)
	sw := t.seqWidth()
	for i := t.top; i < n && len(lines) < lh; i++ {
		lines = append(lines, t.cachedRow(i, iw, sw))
	}
	if n == 0 {
		lines = append(lines, t.styles().Text.Muted.Render(truncate("no events", iw)))
	}
	if lh < ih {
		for len(lines) < lh {
			lines = append(lines, "")
		}
		lines = append(lines, t.filterLine(iw))
	}
	return frame(t.styles(), t.focused, "Timeline", t.info(), lines, t.width, t.height)
}

// filterLine renders the filter prompt or the applied filter.
func (t *Timeline) filterLine(w int) string {
	st := t.styles()
	if t.editing {
		before, at, after := t.draft.Split()
		line := st.Pane.TitleFocused.Render("/") + st.Text.Normal.Render(Sanitize(before)) + "▏"
		if rest := at + after; rest != "" {
			line += st.Text.Normal.Render(Sanitize(rest))
		}
		return fit(line, w)
	}
	return fit(st.Text.Muted.Render(fmt.Sprintf("filter: %s (esc clears)", t.filter)), w)
}

// renderRow renders one row in w cells, choosing columns by width.
func (t *Timeline) renderRow(r TimelineRow, w, sw int, selected bool) string {
	st := t.styles().Timeline
	glyph := plain(r.Glyph)
	if glyph == "" {
		glyph = GlyphFor(r.Type)
	}
	mark := " "
	switch {
	case r.IsBranchPoint:
		mark = st.BranchPoint.Render("├")
	case r.Abandoned:
		mark = st.Abandoned.Render("╎")
	}
	seq := fmt.Sprintf("%*d", sw, r.Seq)
	cols := []string{mark + st.Seq.Render(seq), st.Glyph(Family(r.Type)).Render(glyph)}
	rest := w - widthOf(seq) - 4
	if w >= 40 {
		cols = append(cols[:1], st.Time.Render(r.Time.Format("15:04:05")), cols[1])
		rest -= 9
	}
	if w >= 56 {
		cols = append(cols, st.Actor.Render(fit(shortActor(plain(r.Actor)), 10)))
		rest -= 11
	}
	if w >= 90 {
		cols = append(cols, st.Summary.Render(fit(plain(r.Type), 18)))
		rest -= 19
	}
	cols = append(cols, st.Summary.Render(truncate(oneLine(plain(r.Summary)), max(rest, 0))))
	line := strings.Join(cols, " ")
	if r.Abandoned {
		line = st.Abandoned.Render(stripToPlain(line))
	}
	if selected {
		line = t.styles().Select.Render(fit(stripToPlain(line), w))
	}
	return line
}

// shortActor shortens executor:NAME and tool:NAME for the actor column.
func shortActor(a string) string {
	a = strings.TrimPrefix(a, "executor:")
	return strings.TrimPrefix(a, "tool:")
}

// rowCache keeps rendered rows of the current width and theme; it holds a
// few screens' worth at most.
type rowCache struct {
	w, gen, seqW int
	rows         map[rowKey]string
}

// rowKey identifies a rendered row.
type rowKey struct {
	pos      int
	selected bool
}

// clear drops every cached row.
func (rc *rowCache) clear() { rc.rows = nil }

// cachedRow renders visible row i with a seq column sw wide, reusing an
// earlier rendering.
func (t *Timeline) cachedRow(i, w, sw int) string {
	rc := &t.cache
	if rc.rows == nil || rc.w != w || rc.gen != t.common.Generation() || rc.seqW != sw || len(rc.rows) > 8*max(t.height, 8) {
		rc.rows, rc.w, rc.gen, rc.seqW = map[rowKey]string{}, w, t.common.Generation(), sw
	}
	k := rowKey{pos: i, selected: i == t.cursor}
	if t.filter != "" {
		k.pos = t.idx[i]
	}
	if s, ok := rc.rows[k]; ok {
		return s
	}
	s := t.renderRow(t.row(i), w, sw, k.selected)
	rc.rows[k] = s
	return s
}

// seqWidth is the width of the largest seq in the source (at least 3), so
// the column is as narrow as the history allows.
func (t *Timeline) seqWidth() int {
	n := t.src.Len()
	if n == 0 {
		return 3
	}
	return max(len(strconv.FormatUint(t.src.Row(n-1).Seq, 10)), 3)
}
