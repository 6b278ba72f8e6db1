package views

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// TimelineKeyMap holds the timeline's bindings.
type TimelineKeyMap struct {
	ScrollKeyMap
	Fork   key.Binding // Fork forks a sibling at the selected event.
	Rewind key.Binding // Rewind rewinds the session to the selected event.
	Show   key.Binding // Show opens the selected event in full.
	Filter key.Binding // Filter starts typing a filter.
	Clear  key.Binding // Clear drops the filter.
	Branch key.Binding // Branch shows the session's next branch (the abandoned ones too).
	// Attempts starts several attempts from the selected event (exo attempts).
	Attempts key.Binding
}

// DefaultTimelineKeyMap returns the timeline's default bindings.
func DefaultTimelineKeyMap() TimelineKeyMap {
	return TimelineKeyMap{
		ScrollKeyMap: DefaultScrollKeyMap(),
		Fork:         key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "fork here")),
		Rewind:       key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "rewind here")),
		Show:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "show event")),
		Filter:       key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Clear:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
		Branch:       key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "next branch")),
		Attempts:     key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "attempts from here")),
	}
}

// Timeline is the pane listing every event of the session's history.
type Timeline struct {
	base
	Keys      TimelineKeyMap // Keys are the pane's bindings.
	src       TimelineSource
	filter    string    // filter is the applied, lower-cased query.
	editing   bool      // editing is true while the filter is being typed.
	draft     lineInput // draft is the filter being typed.
	idx       []int     // idx are the source indices that match the filter; nil means all.
	scanned   int       // scanned is how many source rows idx has considered.
	cursor    int       // cursor is the selected position in the visible list.
	top       int       // top is the first visible position.
	following bool      // following keeps the cursor on the last row as rows arrive.
	cache     rowCache
	req       uint64 // req counts selection reports.
}

// NewTimeline returns an empty timeline pane.
func NewTimeline(c *Common) *Timeline {
	return &Timeline{base: base{common: c}, Keys: DefaultTimelineKeyMap(), src: TimelineRows(nil), following: true, draft: newLineInput()}
}

// SetSource replaces the row source; the selection stays on the last row if
// it was there.
func (t *Timeline) SetSource(src TimelineSource) {
	t.src = src
	t.cache.clear()
	t.idx, t.scanned = nil, 0
	t.rescan()
	t.clamp()
}

// Refresh notes that the source grew at the end; only new rows are
// filtered. When existing rows change (a fork marks a branch point, a rewind
// abandons a tail), call SetSource instead, which also drops cached rows.
func (t *Timeline) Refresh() {
	t.rescan()
	t.clamp()
}

// Len returns the number of rows shown (after filtering).
func (t *Timeline) Len() int {
	if t.filter == "" {
		return t.src.Len()
	}
	return len(t.idx)
}

// Selected returns the selected row and whether there is one.
func (t *Timeline) Selected() (TimelineRow, bool) {
	if t.Len() == 0 {
		return TimelineRow{}, false
	}
	return t.row(t.cursor), true
}

// Select moves the selection to the live (not abandoned) row with the given
// seq, if shown.
func (t *Timeline) Select(seq uint64) {
	n := t.Len()
	for i := 0; i < n; i++ {
		if t.row(i).Seq == seq && !t.row(i).Abandoned {
			t.cursor, t.following = i, i == n-1
			t.clamp()
			return
		}
	}
}

// Editing reports whether the filter is being typed (the app then sends it every key).
func (t *Timeline) Editing() bool { return t.editing }

// Filter returns the applied filter query.
func (t *Timeline) Filter() string { return t.filter }

// SetFilter applies a filter by type, actor or summary text.
func (t *Timeline) SetFilter(q string) {
	t.filter = strings.ToLower(strings.TrimSpace(q))
	t.idx, t.scanned = nil, 0
	t.rescan()
	t.cursor, t.top = max(t.Len()-1, 0), 0
	t.following = true
	t.clamp()
}

// rescan extends idx over source rows added since the last scan.
func (t *Timeline) rescan() {
	n := t.src.Len()
	if t.filter != "" {
		for i := t.scanned; i < n; i++ {
			if t.src.Row(i).matches(t.filter) {
				t.idx = append(t.idx, i)
			}
		}
	}
	t.scanned = n
	if t.following {
		t.cursor = max(t.Len()-1, 0)
	}
}

// row returns the visible row at position i.
func (t *Timeline) row(i int) TimelineRow {
	if t.filter == "" {
		return t.src.Row(i)
	}
	return t.src.Row(t.idx[i])
}

// Update handles keys, the mouse wheel and spinner ticks.
func (t *Timeline) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if t.editing {
			return t, t.editFilter(msg)
		}
		return t, t.handleKey(msg)
	case tea.PasteMsg:
		if t.editing {
			return t, t.editFilter(msg)
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			return t, t.move(-3)
		case tea.MouseWheelDown:
			return t, t.move(3)
		}
	}
	return t, nil
}

// handleKey maps a key press to an action.
func (t *Timeline) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := t.Keys
	_, ph := t.inner()
	page := max(ph-1, 1)
	switch {
	case key.Matches(msg, k.Up):
		return t.move(-1)
	case key.Matches(msg, k.Down):
		return t.move(1)
	case key.Matches(msg, k.PageUp):
		return t.move(-page)
	case key.Matches(msg, k.PageDown):
		return t.move(page)
	case key.Matches(msg, k.Top):
		return t.move(-t.Len())
	case key.Matches(msg, k.Bottom):
		return t.move(t.Len())
	case key.Matches(msg, k.Filter):
		t.editing = true
		t.draft.SetValue(t.filter)
	case key.Matches(msg, k.Clear):
		if t.filter != "" {
			t.SetFilter("")
			return t.selectCmd()
		}
	default:
		return t.action(msg)
	}
	return nil
}

// action handles the keys that act on the selected row.
func (t *Timeline) action(msg tea.KeyPressMsg) tea.Cmd {
	r, ok := t.Selected()
	if !ok {
		return nil
	}
	switch {
	case key.Matches(msg, t.Keys.Fork):
		return emit(ForkRequest{Seq: r.Seq, Branch: r.Branch})
	case key.Matches(msg, t.Keys.Branch):
		return emit(NextBranch{})
	case key.Matches(msg, t.Keys.Rewind):
		if r.Abandoned {
			return nil
		}
		return emit(RewindRequest{Seq: r.Seq, Branch: r.Branch})
	case key.Matches(msg, t.Keys.Show):
		return emit(ShowEvent{Seq: r.Seq, Branch: r.Branch})
	case key.Matches(msg, t.Keys.Attempts):
		if r.Abandoned {
			return nil
		}
		return emit(AttemptsRequest{Seq: r.Seq})
	}
	return nil
}

// editFilter handles typing in the filter prompt: enter applies it, esc drops it, the rest
// edits it (see lineInput).
func (t *Timeline) editFilter(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "enter":
			t.editing = false
			t.SetFilter(t.draft.Value())
			return t.selectCmd()
		case "esc":
			t.editing = false
			t.draft.SetValue("")
			return nil
		}
	}
	t.draft.Update(msg)
	return nil
}

// move shifts the selection by delta rows and reports the new selection.
func (t *Timeline) move(delta int) tea.Cmd {
	before := t.cursor
	t.cursor += delta
	t.clamp()
	t.following = t.cursor == t.Len()-1
	if t.cursor == before {
		return nil
	}
	return t.selectCmd()
}

// selectCmd reports the current selection.
func (t *Timeline) selectCmd() tea.Cmd {
	r, ok := t.Selected()
	if !ok {
		return nil
	}
	t.req++
	return emit(TimelineSelectMsg{Seq: r.Seq, Branch: r.Branch, Latest: t.cursor == t.Len()-1, Req: t.req})
}

// IsCurrent reports whether msg is the newest selection report, so that a
// stale one delivered late is dropped.
func (t *Timeline) IsCurrent(msg TimelineSelectMsg) bool { return msg.Req == t.req }

// clamp keeps the cursor in range and visible.
func (t *Timeline) clamp() {
	n := t.Len()
	t.cursor = min(max(t.cursor, 0), max(n-1, 0))
	_, h := t.inner()
	h = t.listHeight(h)
	if t.cursor < t.top {
		t.top = t.cursor
	}
	if h > 0 && t.cursor >= t.top+h {
		t.top = t.cursor - h + 1
	}
	t.top = min(max(t.top, 0), max(n-h, 0))
}

// listHeight is the number of row lines, leaving one for the filter prompt.
func (t *Timeline) listHeight(h int) int {
	if t.editing || t.filter != "" {
		return max(h-1, 0)
	}
	return h
}

// SetSize sets the pane size and keeps the selection visible.
func (t *Timeline) SetSize(w, h int) {
	t.base.SetSize(w, h)
	t.clamp()
}

// ShortHelp lists the main timeline bindings.
func (t *Timeline) ShortHelp() []key.Binding {
	return []key.Binding{t.Keys.Down, t.Keys.Up, t.Keys.Fork, t.Keys.Rewind, t.Keys.Show, t.Keys.Filter}
}

// FullHelp lists all timeline bindings.
func (t *Timeline) FullHelp() [][]key.Binding {
	return [][]key.Binding{t.Keys.bindings(), {t.Keys.Fork, t.Keys.Rewind, t.Keys.Attempts, t.Keys.Show, t.Keys.Filter, t.Keys.Clear, t.Keys.Branch}}
}

// info is the frame's right-hand text: the position in the list.
func (t *Timeline) info() string {
	if t.Len() == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", t.cursor+1, t.Len())
}
