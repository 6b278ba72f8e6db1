package views

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// PickerRow is one session in the resume picker (exo -r).
type PickerRow struct {
	ID     string        // ID is the session's id.
	Name   string        // Name is the session's name.
	Dir    string        // Dir is the project directory's last element.
	Here   bool          // Here is true when the session works in the current directory.
	Status SessionStatus // Status is the session's live state.
	Age    string        // Age says how long ago the session was last used ("3m", "2d").
	Prompt string        // Prompt is the session's last prompt.
}

// PickedMsg is the picker's answer: the chosen session, or "" when the user cancelled.
type PickedMsg struct{ ID string }

// Picker lists sessions to resume, the current directory's first: typing filters (every word
// must appear in the name, the last prompt, the directory or the id), ↑/↓ select, enter
// opens, esc cancels.
type Picker struct {
	base
	rows   []PickerRow
	filter lineInput
	shown  []int // shown indexes rows that pass the filter.
	sel    int   // sel indexes shown.
	top    int   // top is the first shown row on screen.
}

// NewPicker returns an empty, focused picker.
func NewPicker(c *Common) *Picker {
	p := &Picker{base: base{common: c}, filter: newLineInput()}
	p.Focus()
	return p
}

// SetRows replaces the sessions, in the order to show them.
func (p *Picker) SetRows(rows []PickerRow) {
	p.rows = rows
	p.refilter()
}

// Filter returns the typed filter.
func (p *Picker) Filter() string { return p.filter.Value() }

// Matches returns the ids of the rows the filter leaves, in order.
func (p *Picker) Matches() []string {
	out := make([]string, len(p.shown))
	for i, r := range p.shown {
		out[i] = p.rows[r].ID
	}
	return out
}

// Selected returns the highlighted session's id ("" when nothing matches).
func (p *Picker) Selected() string {
	if p.sel < 0 || p.sel >= len(p.shown) {
		return ""
	}
	return p.rows[p.shown[p.sel]].ID
}

// refilter recomputes the rows the filter leaves and keeps the selection in range.
func (p *Picker) refilter() {
	words := strings.Fields(strings.ToLower(p.filter.Value()))
	p.shown = p.shown[:0]
	for i, r := range p.rows {
		hay := strings.ToLower(r.Name + "\x00" + r.Prompt + "\x00" + r.Dir + "\x00" + r.ID)
		ok := true
		for _, w := range words {
			if !strings.Contains(hay, w) {
				ok = false
				break
			}
		}
		if ok {
			p.shown = append(p.shown, i)
		}
	}
	p.sel = min(max(p.sel, 0), max(len(p.shown)-1, 0))
}

// Update handles keys and pastes.
func (p *Picker) Update(msg tea.Msg) (Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return p, p.key(msg)
	case tea.PasteMsg:
		p.edit(msg)
	}
	return p, nil
}

// key handles one key press.
func (p *Picker) key(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc", "ctrl+c":
		return emit(PickedMsg{})
	case "enter":
		if id := p.Selected(); id != "" {
			return emit(PickedMsg{ID: id})
		}
	case "up", "ctrl+p":
		p.move(-1)
	case "down", "ctrl+n":
		p.move(1)
	case "pgup":
		p.move(-max(p.listRows(), 1))
	case "pgdown":
		p.move(max(p.listRows(), 1))
	default:
		p.edit(msg)
	}
	return nil
}

// edit passes a key or a paste to the filter and filters again when its text changed; text
// that grew selects the first match.
func (p *Picker) edit(msg tea.Msg) {
	n := len(p.filter.Value())
	if !p.filter.Update(msg) {
		return
	}
	if len(p.filter.Value()) > n {
		p.sel = 0
	}
	p.refilter()
}

// move moves the selection by d rows, staying in the list.
func (p *Picker) move(d int) {
	p.sel = min(max(p.sel+d, 0), max(len(p.shown)-1, 0))
}

// listRows is how many rows fit between the filter line and the hint line.
func (p *Picker) listRows() int { return max(p.height-4, 0) }

// View renders the picker at its size: a frame with the filter line, the rows and a hint.
func (p *Picker) View() string {
	st := p.styles()
	iw := max(p.width-2, 0)
	n := p.listRows()
	if p.sel < p.top {
		p.top = p.sel
	}
	if n > 0 && p.sel >= p.top+n {
		p.top = p.sel - n + 1
	}
	before, at, after := p.filter.Split()
	if at == "" {
		at = " "
	}
	body := []string{st.Conv.UserLabel.Render("› ") + Sanitize(before) + st.Select.Render(Sanitize(at)) + Sanitize(after)}
	for i := p.top; i < len(p.shown) && i < p.top+n; i++ {
		body = append(body, p.renderRow(p.rows[p.shown[i]], i == p.sel, iw))
	}
	if len(p.shown) == 0 {
		msg := "no session matches"
		if len(p.rows) == 0 {
			msg = "no session to resume: run exo without -r to start one"
		}
		body = append(body, st.Text.Muted.Render(msg))
	}
	for len(body) < n+1 {
		body = append(body, "")
	}
	body = append(body, st.Text.Muted.Render("type to filter · ↑/↓ select · enter open · esc cancel"))
	info := fmt.Sprintf("%d/%d", len(p.shown), len(p.rows))
	return frame(st, true, "Resume a session", info, body, p.width, p.height)
}

// renderRow renders one session: status, name, age, directory and last prompt.
func (p *Picker) renderRow(r PickerRow, selected bool, w int) string {
	st := p.styles()
	dir := r.Dir
	if r.Here {
		dir = "here"
	}
	name := fit(plain(r.Name), min(24, max(w/4, 8)))
	left := fmt.Sprintf("%s %s %s %s ", statusMark(r.Status), name, fitLeft(r.Age, 4), fit(plain(dir), 10))
	prompt := truncate(oneLine(plain(r.Prompt)), max(w-widthOf(left), 0))
	if selected {
		return st.Select.Render(fit(left+prompt, w))
	}
	return st.Text.Normal.Render(left) + st.Text.Muted.Render(prompt)
}

// statusMark is a one-cell mark of a session's state, without colour (the row is styled whole).
func statusMark(s SessionStatus) string {
	switch s {
	case StatusRunning:
		return "●"
	case StatusApproval:
		return "?"
	case StatusFailed:
		return "✗"
	case StatusFinished:
		return "✓"
	case StatusPending:
		return "…"
	case StatusSuspended:
		return "‖"
	}
	return "○"
}

// ShortHelp lists the picker's keys.
func (p *Picker) ShortHelp() []key.Binding { return pickerKeys }

// FullHelp lists the picker's keys.
func (p *Picker) FullHelp() [][]key.Binding { return [][]key.Binding{pickerKeys} }

// pickerKeys describe the picker's keys for help.
var pickerKeys = []key.Binding{
	key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "select")),
	key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
	key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
}
