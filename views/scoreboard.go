package views

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// ScoreRow is one attempt as the scoreboard shows it: its cells in the order of
// ScoreColumns, already written as text, and how it is doing.
type ScoreRow struct {
	Cells []string // Cells are the row's columns, as ScoreColumns names them.
	Pass  bool     // Pass marks an attempt that ended well (its check passed, if any).
	Fail  bool     // Fail marks an attempt that failed, or whose check failed.
	Kept  bool     // Kept marks the attempt kept.
}

// ScoreColumns are the scoreboard's column titles, and the order a narrow screen drops them in
// (ScoreDrop: the last first).
var ScoreColumns = []string{"ATTEMPT", "RUNNER", "STATUS", "CHECK", "FILES", "DRIFT", "STEPS", "TOOLS", "TOKENS", "COST", "TTFT", "WALL", "ASKED"}

// scoreDrop lists the columns dropped first when the screen is narrow.
var scoreDrop = []int{12, 7, 5, 10, 6, 9, 4, 1}

// ScoreSort asks the app to sort the scoreboard by column Col (an index of ScoreColumns).
type ScoreSort struct{ Col int }

// ScoreOpen asks the app to act on the selected attempt (Row): show its diff (no flag set),
// keep it (Keep; with Archive the set's other members are archived in the same step), or replay
// the original session's prompts under the attempt's executor and model (Replay).
type ScoreOpen struct {
	Row     int
	Keep    bool
	Archive bool
	Replay  bool
}

// ScoreboardKeyMap holds the scoreboard's bindings.
type ScoreboardKeyMap struct {
	Up, Down    key.Binding // Up and Down select an attempt.
	Left, Right key.Binding // Left and Right choose the column to sort by.
	Diff        key.Binding // Diff shows the selected attempt's changes.
	Keep        key.Binding // Keep keeps the selected attempt.
	Archive     key.Binding // Archive keeps the selected attempt and archives the others.
	Replay      key.Binding // Replay replays the original's prompts under the attempt's runner.
	Close       key.Binding // Close closes the overlay.
}

// Scoreboard is the overlay scoring a set of attempts, sortable by any column.
type Scoreboard struct {
	base
	Keys  ScoreboardKeyMap // Keys are the overlay's bindings.
	title string
	rows  []ScoreRow
	sort  int
	sel   int
}

// NewScoreboard returns the scoreboard overlay titled title (the set and its prompt).
func NewScoreboard(c *Common, title string) *Scoreboard {
	return &Scoreboard{base: base{common: c, focused: true}, title: oneLine(plain(title)), sort: -1, Keys: ScoreboardKeyMap{
		Up:      key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:    key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Left:    key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "sort by the column before")),
		Right:   key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "sort by the next column")),
		Diff:    key.NewBinding(key.WithKeys("enter", "d"), key.WithHelp("enter", "diff")),
		Keep:    key.NewBinding(key.WithKeys("K"), key.WithHelp("K", "keep this attempt")),
		Archive: key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "keep this attempt, archive the others")),
		Replay:  key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "replay the original's prompts under this runner")),
		Close:   key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", "close")),
	}}
}

// SetRows replaces the rows, sorted by column sort (-1: in the set's order).
func (s *Scoreboard) SetRows(rows []ScoreRow, sort int) {
	s.rows, s.sort = rows, sort
	s.sel = min(s.sel, max(len(rows)-1, 0))
}

// Selected returns the selected row's index.
func (s *Scoreboard) Selected() int { return s.sel }

// Update moves the selection, changes the sort column, and asks for a diff, a keep or a replay.
func (s *Scoreboard) Update(msg tea.Msg) (Pane, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return s, nil
	}
	switch {
	case key.Matches(k, s.Keys.Close):
		return s, emit(CloseOverlay{})
	case key.Matches(k, s.Keys.Up):
		s.sel = max(s.sel-1, 0)
	case key.Matches(k, s.Keys.Down):
		s.sel = min(s.sel+1, max(len(s.rows)-1, 0))
	case key.Matches(k, s.Keys.Left):
		return s, emit(ScoreSort{Col: (s.sort + len(ScoreColumns) - 1 + boolInt(s.sort < 0)) % len(ScoreColumns)})
	case key.Matches(k, s.Keys.Right):
		return s, emit(ScoreSort{Col: (s.sort + 1) % len(ScoreColumns)})
	case key.Matches(k, s.Keys.Diff):
		if len(s.rows) > 0 {
			return s, emit(ScoreOpen{Row: s.sel})
		}
	case key.Matches(k, s.Keys.Keep):
		if len(s.rows) > 0 {
			return s, emit(ScoreOpen{Row: s.sel, Keep: true})
		}
	case key.Matches(k, s.Keys.Archive):
		if len(s.rows) > 0 {
			return s, emit(ScoreOpen{Row: s.sel, Keep: true, Archive: true})
		}
	case key.Matches(k, s.Keys.Replay):
		if len(s.rows) > 0 {
			return s, emit(ScoreOpen{Row: s.sel, Replay: true})
		}
	}
	return s, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// columns picks the columns that fit in w cells, with each one's width.
func (s *Scoreboard) columns(w int) ([]int, []int) {
	widths := make([]int, len(ScoreColumns))
	for i, t := range ScoreColumns {
		widths[i] = ansi.StringWidth(t) + 1 // room for the sort mark
	}
	for _, r := range s.rows {
		for i, c := range r.Cells {
			if i == 0 && r.Kept {
				c = "★ " + c
			}
			if i < len(widths) {
				widths[i] = max(widths[i], ansi.StringWidth(c))
			}
		}
	}
	widths[0] = min(widths[0], 28)
	keep := make([]bool, len(widths))
	for i := range keep {
		keep[i] = true
	}
	total := func() int {
		n := 0
		for i, on := range keep {
			if on {
				n += widths[i] + 2
			}
		}
		return n
	}
	for _, d := range scoreDrop {
		if total() <= w {
			break
		}
		keep[d] = false
	}
	var cols []int
	for i, on := range keep {
		if on {
			cols = append(cols, i)
		}
	}
	return cols, widths
}

// View renders the table: a header marking the sort column, then a row per attempt.
func (s *Scoreboard) View() string {
	w, h := s.inner()
	st := s.styles()
	cols, widths := s.columns(w)
	var head strings.Builder
	for _, i := range cols {
		t := ScoreColumns[i]
		if i == s.sort {
			t += "↓"
		}
		head.WriteString(padCell(t, widths[i]+2))
	}
	hints := scoreHints(w)
	if h-len(hints)-1 < 2 { // too short for the hints: the rows come first
		hints = nil
	}
	rowsH := h - len(hints) - boolInt(len(hints) > 0)
	body := []string{st.Text.Strong.Render(truncate(head.String(), w))}
	top := max(0, s.sel-(rowsH-2))
	for ri := top; ri < len(s.rows) && len(body) < rowsH; ri++ {
		r := s.rows[ri]
		var b strings.Builder
		for _, i := range cols {
			c := ""
			if i < len(r.Cells) {
				c = r.Cells[i]
			}
			if i == 0 && r.Kept {
				c = "★ " + c
			}
			b.WriteString(padCell(truncate(c, widths[i]), widths[i]+2))
		}
		line := truncate(b.String(), w)
		switch {
		case ri == s.sel:
			line = st.Modal.Active.Render(line)
		case r.Fail:
			line = st.Status.Err.Render(line)
		case r.Pass:
			line = st.Status.OK.Render(line)
		default:
			line = st.Text.Normal.Render(line)
		}
		body = append(body, line)
	}
	if len(s.rows) == 0 {
		body = append(body, st.Text.Muted.Render("no attempts"))
	}
	if len(hints) > 0 {
		for len(body) < h-len(hints) {
			body = append(body, "")
		}
		for _, l := range hints {
			body = append(body, st.Text.Muted.Render(l))
		}
	}
	m := *st
	m.Pane.BorderFocused, m.Pane.TitleFocused = m.Modal.Frame, m.Modal.Title
	return frame(&m, true, s.title, "esc close", body, s.width, s.height)
}

// scoreKeyHints are the scoreboard's keys as its footer lists them.
var scoreKeyHints = []string{"↑/↓ select", "←/→ sort", "enter diff", "K keep", "A keep + archive the others", "R replay the prompts under this runner", "esc close"}

// scoreHints lays the key hints out in lines of at most w cells, breaking between hints, so
// every key stays readable however narrow the overlay (a hint wider than w is cut).
func scoreHints(w int) []string {
	var lines []string
	line := ""
	for _, h := range scoreKeyHints {
		switch {
		case line == "":
			line = h
		case ansi.StringWidth(line)+3+ansi.StringWidth(h) <= w:
			line += " · " + h
		default:
			lines = append(lines, truncate(line, w))
			line = h
		}
	}
	return append(lines, truncate(line, w))
}

// padCell pads text with spaces to n cells.
func padCell(text string, n int) string {
	if gap := n - ansi.StringWidth(text); gap > 0 {
		return text + strings.Repeat(" ", gap)
	}
	return text
}

// ShortHelp lists the overlay's main bindings.
func (s *Scoreboard) ShortHelp() []key.Binding {
	return []key.Binding{s.Keys.Left, s.Keys.Right, s.Keys.Diff, s.Keys.Keep, s.Keys.Archive, s.Keys.Replay, s.Keys.Close}
}

// FullHelp lists the overlay's bindings.
func (s *Scoreboard) FullHelp() [][]key.Binding {
	return [][]key.Binding{{s.Keys.Up, s.Keys.Down, s.Keys.Left, s.Keys.Right}, {s.Keys.Diff, s.Keys.Keep, s.Keys.Archive, s.Keys.Replay, s.Keys.Close}}
}
