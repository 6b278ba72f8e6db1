package views

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// SiblingsKeyMap holds the siblings pane's bindings.
type SiblingsKeyMap struct {
	Up     key.Binding // Up selects the previous session.
	Down   key.Binding // Down selects the next session.
	Switch key.Binding // Switch shows the selected session.
	New    key.Binding // New starts a session.
	Split  key.Binding // Split toggles the split view.
	Diff   key.Binding // Diff shows the changes the selected session and the shown one both made.
	// TakeOver makes the selected session of a daemon that is gone this daemon's.
	TakeOver key.Binding
	Archive  key.Binding // Archive hides the selected session (after a question).
	Delete   key.Binding // Delete removes the selected session (after a question).
}

// DefaultSiblingsKeyMap returns the siblings pane's default bindings.
func DefaultSiblingsKeyMap() SiblingsKeyMap {
	return SiblingsKeyMap{
		Up:     key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("↑/k", "up")),
		Down:   key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("↓/j", "down")),
		Switch: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "switch")),
		New:    key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new session")),
		Split:  key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "split view")),
		Diff:   key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "diff conflicts")),
		TakeOver: key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "take over (its daemon is gone)"),
			key.WithDisabled()),
		Archive: key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "archive")),
		Delete:  key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "delete")),
	}
}

// Siblings is the pane listing all sessions as a tree of forks.
type Siblings struct {
	base
	Keys   SiblingsKeyMap // Keys are the pane's bindings.
	rows   []SiblingRow   // rows are in tree order.
	depth  []int          // depth is each row's indent level.
	cursor int
	top    int
	frame  int
	// current is the session the app shows (marked ▸), set by SetCurrent.
	current string
	// follow is set when current changes: the selection moves to its row once it is listed.
	follow bool
	// gen counts changes of the rows; memo and memoKey keep the last View (see View).
	gen     int
	memo    string
	memoKey siblingsKey
}

// siblingsKey is everything the pane's View depends on besides its rows (counted by gen).
type siblingsKey struct {
	gen, cursor, top, frame, width, height, theme int
	focused                                       bool
	current                                       string
}

// NewSiblings returns an empty siblings pane.
func NewSiblings(c *Common) *Siblings {
	return &Siblings{base: base{common: c}, Keys: DefaultSiblingsKeyMap()}
}

// Rows returns the rows shown (in the pane's order).
func (s *Siblings) Rows() []SiblingRow { return s.rows }

// SetRows replaces the sessions; children are placed under their parents.
// The selection stays on the same session id when it still exists.
func (s *Siblings) SetRows(rows []SiblingRow) {
	// The selected row, then its neighbours (after it first), for when it is gone (deleted
	// with x): the cursor stays where it was in the list instead of jumping to the top.
	var want []string
	if s.cursor < len(s.rows) {
		want = append(want, s.rows[s.cursor].ID)
		if s.cursor+1 < len(s.rows) {
			want = append(want, s.rows[s.cursor+1].ID)
		}
		if s.cursor > 0 {
			want = append(want, s.rows[s.cursor-1].ID)
		}
	}
	rows, depth := treeOrder(rows)
	if !slices.Equal(rows, s.rows) || !slices.Equal(depth, s.depth) {
		s.gen++
	}
	s.rows, s.depth = rows, depth
	s.cursor = s.indexOf(want)
	s.followCurrent()
}

// indexOf returns the row of the first of ids still in the list, or 0.
func (s *Siblings) indexOf(ids []string) int {
	for _, id := range ids {
		for i, r := range s.rows {
			if r.ID == id {
				return i
			}
		}
	}
	return 0
}

// followCurrent selects the current session's row after the app switched to it (opened on
// it, made it with n, forked it): the ▸ row is then in view, wherever it is in the list.
func (s *Siblings) followCurrent() {
	if !s.follow {
		return
	}
	for i, r := range s.rows {
		if r.ID == s.current {
			s.cursor, s.follow = i, false
			return
		}
	}
}

// treeOrder orders rows depth-first under their parents.
func treeOrder(rows []SiblingRow) ([]SiblingRow, []int) {
	ids := make(map[string]bool, len(rows))
	kids := make(map[string][]SiblingRow, len(rows))
	for _, r := range rows {
		ids[r.ID] = true
	}
	var roots []SiblingRow
	for _, r := range rows {
		if r.Parent != "" && ids[r.Parent] && r.Parent != r.ID {
			kids[r.Parent] = append(kids[r.Parent], r)
			continue
		}
		roots = append(roots, r)
	}
	out, depth := make([]SiblingRow, 0, len(rows)), make([]int, 0, len(rows))
	seen := make(map[string]bool, len(rows))
	var walk func(r SiblingRow, d int)
	walk = func(r SiblingRow, d int) {
		if seen[r.ID] {
			return
		}
		seen[r.ID] = true
		out, depth = append(out, r), append(depth, d)
		for _, k := range kids[r.ID] {
			walk(k, d+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	return out, depth
}

// SetCurrent marks the session the app shows (▸), whatever the rows' own Current says.
// When it changes, the selection follows it to its row.
func (s *Siblings) SetCurrent(id string) {
	if id != s.current {
		s.current, s.follow = id, true
	}
	s.followCurrent()
}

// Selected returns the selected session and whether there is one.
func (s *Siblings) Selected() (SiblingRow, bool) {
	if s.cursor >= len(s.rows) {
		return SiblingRow{}, false
	}
	return s.rows[s.cursor], true
}

// Update handles keys, the wheel and spinner ticks.
func (s *Siblings) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case SpinnerTickMsg:
		s.frame++
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			s.move(-1)
		} else if msg.Button == tea.MouseWheelDown {
			s.move(1)
		}
	case tea.KeyPressMsg:
		return s, s.handleKey(msg)
	}
	return s, nil
}

// handleKey maps a key press to a selection move or a request.
func (s *Siblings) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	r, ok := s.Selected()
	switch {
	case key.Matches(msg, s.Keys.Up):
		s.move(-1)
	case key.Matches(msg, s.Keys.Down):
		s.move(1)
	case key.Matches(msg, s.Keys.New):
		return emit(NewSession{})
	case key.Matches(msg, s.Keys.Switch) && ok:
		return emit(SwitchSession{ID: r.ID})
	case key.Matches(msg, s.Keys.Split):
		return emit(ToggleSplit{ID: r.ID})
	case key.Matches(msg, s.Keys.Diff) && ok:
		return emit(ConflictDiff{ID: r.ID, Name: r.Name})
	case key.Matches(msg, s.Keys.Archive) && ok:
		return emit(ArchiveRequest{ID: r.ID, Name: r.Name, Refused: s.lifecycleRefusal(r, "archive")})
	case key.Matches(msg, s.Keys.Delete) && ok:
		return emit(DeleteRequest{ID: r.ID, Name: r.Name, Refused: s.lifecycleRefusal(r, "delete")})
	case msg.String() == "T" && ok:
		t := TakeOver{ID: r.ID, Name: r.Name}
		if !r.TakeOverable() {
			t.Refused = takeOverRefusal(r)
		}
		return emit(t)
	}
	return nil
}

// lifecycleRefusal says why a session cannot be archived or deleted from here ("" when it can).
func (s *Siblings) lifecycleRefusal(r SiblingRow, what string) string {
	switch {
	case r.Remote():
		return r.Name + " is daemon " + r.Node + "'s session: " + what + " it there (or take it over first)"
	case what == "delete" && r.ID == s.current:
		return r.Name + " is the session shown: switch to another one to delete it"
	case what == "delete" && (r.Status == StatusRunning || r.Status == StatusApproval):
		return r.Name + " is running a turn: wait for it or cancel it first"
	}
	return ""
}

// takeOverRefusal says why T does nothing on a row.
func takeOverRefusal(r SiblingRow) string {
	switch {
	case !r.Remote():
		return r.Name + " is this daemon's own session: nothing to take over"
	case r.Live:
		return r.Name + " runs on daemon " + r.Node + ", which is alive: only it writes to the session"
	}
	return r.Name + " is orphaned: daemon " + r.Node + " is gone and its workspace is not reachable from here"
}

// syncKeys enables the bindings that apply to the selected row, so help shows them.
func (s *Siblings) syncKeys() {
	r, ok := s.Selected()
	s.Keys.TakeOver.SetEnabled(ok && r.TakeOverable())
}

// move shifts the selection.
func (s *Siblings) move(d int) {
	s.cursor = min(max(s.cursor+d, 0), max(len(s.rows)-1, 0))
}

// ShortHelp lists the main siblings bindings (take over when the selected row allows it).
func (s *Siblings) ShortHelp() []key.Binding {
	s.syncKeys()
	return []key.Binding{s.Keys.Switch, s.Keys.New, s.Keys.Split, s.Keys.TakeOver}
}

// FullHelp lists all siblings bindings.
func (s *Siblings) FullHelp() [][]key.Binding {
	s.syncKeys()
	return [][]key.Binding{{s.Keys.Up, s.Keys.Down}, {s.Keys.Switch, s.Keys.New, s.Keys.Split, s.Keys.Diff, s.Keys.TakeOver}, {s.Keys.Archive, s.Keys.Delete}}
}

// View renders the visible sessions as a table whose columns line up; when some do not fit, the
// frame shows which ones are visible and the last line says how many more there are.
//
// An answer streaming in the conversation redraws the screen 30 times a second while this pane
// changes only when a session does (or its spinner turns, 10 times a second): the last View is
// kept for as long as nothing it depends on changed (5.8% of an app's CPU on the rig's streamed
// answer before).
func (s *Siblings) View() string {
	k := siblingsKey{gen: s.gen, cursor: s.cursor, top: s.top, width: s.width, height: s.height, focused: s.focused,
		current: s.current, theme: s.common.Generation()}
	if s.anyRunning() {
		k.frame = s.frame
	}
	if k == s.memoKey && s.memo != "" {
		return s.memo
	}
	s.memo, s.memoKey = s.view(), k
	return s.memo
}

// anyRunning reports whether a row shows the spinner.
func (s *Siblings) anyRunning() bool {
	for _, r := range s.rows {
		if r.Status == StatusRunning {
			return true
		}
	}
	return false
}

// view renders the pane (View keeps the result).
func (s *Siblings) view() string {
	w, h := s.inner()
	if s.width < 4 || s.height < 3 {
		w, h = s.width, s.height
	}
	if s.cursor < s.top {
		s.top = s.cursor
	}
	more := len(s.rows) > h && h >= 2
	rows := h
	if more {
		rows = h - 1 // the last line counts the sessions below
	}
	if rows > 0 && s.cursor >= s.top+rows {
		s.top = s.cursor - rows + 1
	}
	s.top = max(min(s.top, len(s.rows)-rows), 0)
	widths := s.columnWidths(w)
	lines := make([]string, 0, h)
	for i := s.top; i < len(s.rows) && len(lines) < rows; i++ {
		lines = append(lines, s.renderRow(i, w, widths))
	}
	info := fmt.Sprintf("%d", len(s.rows))
	if shown := len(lines); shown < len(s.rows) && shown > 0 {
		info = fmt.Sprintf("%d-%d/%d", s.top+1, s.top+shown, len(s.rows))
	}
	if more {
		below := len(s.rows) - s.top - len(lines)
		var parts []string
		if below > 0 {
			parts = append(parts, fmt.Sprintf("↓ %d more", below))
		}
		if s.top > 0 {
			parts = append(parts, fmt.Sprintf("↑ %d above", s.top))
		}
		more := strings.Join(append(parts, "j/k"), " · ")
		lines = append(lines, s.styles().Text.Muted.Render(truncate(more, w)))
	}
	if len(s.rows) == 0 {
		lines = append(lines, s.styles().Text.Muted.Render(truncate("no sessions · n starts one", w)))
	}
	return frame(s.styles(), s.focused, "Sessions", info, lines, s.width, s.height)
}

// sibColumn is one right-hand column of the sessions table.
type sibColumn struct {
	prio  int  // prio orders the columns kept when room is short (1 is kept first).
	right bool // right aligns numbers.
	cell  func(s *Siblings, r SiblingRow) string
}

// sibColumns are the table's columns in display order.
var sibColumns = []sibColumn{
	{prio: 10, cell: func(s *Siblings, r SiblingRow) string { return s.styles().Text.Muted.Render(statusWord(r.Status)) }},
	{prio: 1, cell: func(s *Siblings, r SiblingRow) string { return s.remoteState(r) }},
	{prio: 7, cell: func(s *Siblings, r SiblingRow) string {
		return s.styles().Text.Muted.Render(truncate(plain(r.Dir), 16))
	}},
	{prio: 5, cell: func(s *Siblings, r SiblingRow) string { return s.modelLabel(r) }},
	{prio: 8, right: true, cell: func(s *Siblings, r SiblingRow) string {
		return s.styles().Text.Muted.Render(fmt.Sprintf("%d st", r.Steps))
	}},
	{prio: 9, right: true, cell: func(s *Siblings, r SiblingRow) string {
		return s.styles().Text.Muted.Render(fmt.Sprintf("%s↑ %s↓", compact(r.TokensIn), compact(r.TokensOut)))
	}},
	{prio: 6, right: true, cell: func(s *Siblings, r SiblingRow) string {
		return s.styles().Text.Muted.Render(fmt.Sprintf("$%.2f", r.Cost))
	}},
	{prio: 4, cell: func(s *Siblings, r SiblingRow) string {
		if r.Clients == 0 {
			return ""
		}
		return s.styles().Text.Muted.Render(fmt.Sprintf("◉%d", r.Clients))
	}},
	{prio: 2, cell: func(s *Siblings, r SiblingRow) string { return s.driftBar(r.Drift, 8) }},
	{prio: 3, cell: func(s *Siblings, r SiblingRow) string {
		if r.Conflicts == 0 {
			return ""
		}
		return s.styles().Status.Err.Render(fmt.Sprintf("!%d", r.Conflicts))
	}},
}

// remoteState says, for another daemon's session (whose row names that daemon after the
// session), whether it is live there, gone (T takes it over) or orphaned (gone, and its
// workspace is not reachable here).
func (s *Siblings) remoteState(r SiblingRow) string {
	st := s.styles()
	switch {
	case !r.Remote():
		return ""
	case r.Live:
		return st.Text.Muted.Render("live")
	case r.Orphaned:
		return st.Status.Err.Render("orphaned")
	}
	return st.Status.Warn.Render("gone")
}

// dirColumn is the index of the project directory column in sibColumns.
const dirColumn = 2

// dirsMixed reports whether the rows work in more than one project directory.
func (s *Siblings) dirsMixed() bool {
	for _, r := range s.rows {
		if r.Dir != s.rows[0].Dir {
			return true
		}
	}
	return false
}

// maxNameRoom is the most the tree and name column takes before columns are dropped for it.
const maxNameRoom = 26

// columnWidths measures every column over all rows (so columns line up) and keeps, by priority,
// those that fit beside the names in w cells; a dropped column has width 0.
func (s *Siblings) columnWidths(w int) []int {
	widths := make([]int, len(sibColumns))
	nameW := 8
	for i, r := range s.rows {
		nameW = max(nameW, widthOf(s.left(i)))
		for j, c := range sibColumns {
			widths[j] = max(widths[j], widthOf(c.cell(s, r)))
		}
	}
	budget := w - min(nameW, maxNameRoom) - 1
	keep := make([]bool, len(sibColumns))
	mixed := s.dirsMixed()
	for prio := 1; prio <= len(sibColumns); prio++ {
		for j, c := range sibColumns {
			p := c.prio
			if j == dirColumn && mixed {
				p = 4 // sessions of several projects: which one a row works in matters more
			}
			if p == prio && widths[j] > 0 && widths[j]+1 <= budget {
				keep[j], budget = true, budget-widths[j]-1
			}
		}
	}
	for j := range widths {
		if !keep[j] {
			widths[j] = 0
		}
	}
	return widths
}

// left renders the marker, tree, status and name of row i.
func (s *Siblings) left(i int) string {
	st := s.styles()
	r := s.rows[i]
	indent := strings.Repeat("  ", min(s.depth[i], 4))
	if s.depth[i] > 0 {
		indent = indent[:len(indent)-2] + "└ "
	}
	cur := " "
	if r.ID == s.current || s.current == "" && r.Current {
		cur = st.Pane.TitleFocused.Render("▸")
	}
	name := cur + indent + s.statusGlyph(r.Status) + " " + st.Text.Strong.Render(plain(r.Name))
	if r.Remote() {
		name += st.Text.Muted.Render("@" + truncate(plain(r.Node), 12))
	}
	return name
}

// renderRow renders session i in w cells: the tree and name on the left, the kept columns
// padded to their widths on the right.
func (s *Siblings) renderRow(i, w int, widths []int) string {
	st := s.styles()
	var right []string
	for j, c := range sibColumns {
		if widths[j] == 0 {
			continue
		}
		cell := c.cell(s, s.rows[i])
		if pad := widths[j] - widthOf(cell); c.right && pad > 0 {
			cell = strings.Repeat(" ", pad) + cell
		}
		right = append(right, fit(cell, widths[j]))
	}
	tail := strings.Join(right, " ")
	room := w - widthOf(tail) - 1
	line := fit(s.left(i), max(room, 0)) + " " + tail
	if tail == "" {
		line = s.left(i)
	}
	line = truncate(line, w)
	if i == s.cursor && s.focused {
		return st.Select.Render(fit(stripToPlain(line), w))
	}
	return line
}

// statusGlyph renders a session status, a spinner while running.
func (s *Siblings) statusGlyph(st SessionStatus) string {
	sty := s.styles().Status
	switch st {
	case StatusRunning:
		return s.styles().Spinner.Render(spinnerFrame(s.frame))
	case StatusApproval:
		return sty.Warn.Render("?")
	case StatusFailed:
		return sty.Err.Render("✗")
	case StatusFinished:
		return sty.OK.Render("✓")
	case StatusPending:
		return sty.Warn.Render("…")
	case StatusSuspended:
		return sty.Idle.Render("‖")
	}
	return sty.Idle.Render("○")
}

// modelLabel renders the model, with a badge when scripted, after the executor when it is not
// exo's own (claude-code·sonnet).
func (s *Siblings) modelLabel(r SiblingRow) string {
	label := truncate(plain(r.Model), 16)
	if r.Executor != "" && r.Executor != "default" {
		label = truncate(plain(r.Executor), 14) + "·" + label
	}
	m := s.styles().Text.Muted.Render(label)
	if r.Scripted {
		m += " " + s.styles().Scripted.Render("scripted")
	}
	return m
}

// driftBar renders drift as a bar of n cells coloured by level, and its value.
func (s *Siblings) driftBar(d float64, n int) string {
	return DriftBar(s.styles(), d, n)
}

// compact formats a count briefly: 950, 12.3k, 4.1M.
func compact(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%d", n)
}

// roundCells is the number of filled cells of an n-cell bar at fraction f.
func roundCells(f float64, n int) int {
	return min(max(int(math.Round(f*float64(n))), 0), n)
}

// statusWord names a status for the row.
func statusWord(st SessionStatus) string {
	if st == StatusApproval {
		return "needs approval"
	}
	return string(st)
}
