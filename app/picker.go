package app

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	tea "charm.land/bubbletea/v2"

	"exo/harness/api"
	"exo/themes"
	"exo/views"
)

// PickOptions configure the resume picker.
type PickOptions struct {
	Workspace string // Workspace is the current directory: its sessions come first.
	Theme     string // Theme is a theme name (auto follows the terminal's background).
}

// Pick shows the sessions to resume (exo -r) full screen before the app opens and returns the
// one the user chose, or "" when they cancelled. Archived sessions and sessions whose workspace
// is on a machine that is gone are not offered.
func Pick(c api.Client, opts PickOptions) (string, error) {
	all, err := c.ListSessions(context.Background())
	if err != nil {
		return "", fmt.Errorf("list sessions: %w", err)
	}
	pm := newPickModel(opts, PickerRows(all, opts.Workspace, time.Now()))
	if _, err := tea.NewProgram(pm, tea.WithFPS(frameRate)).Run(); err != nil {
		return "", fmt.Errorf("session picker: %w", err)
	}
	return pm.chosen, nil
}

// PickerRows orders sessions for the picker: those working in dir first, then the rest, each
// group most recently used first.
func PickerRows(all []api.SessionInfo, dir string, now time.Time) []views.PickerRow {
	type entry struct {
		in   api.SessionInfo
		here bool
	}
	var es []entry
	for _, in := range all {
		if in.Session == nil || in.Session.Archived || in.Orphaned {
			continue
		}
		es = append(es, entry{in, worksIn(in.Session, dir)})
	}
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].here != es[j].here {
			return es[i].here
		}
		return es[i].in.LastUsed.After(es[j].in.LastUsed)
	})
	rows := make([]views.PickerRow, len(es))
	for i, e := range es {
		st := siblingStatus(e.in.Status)
		if e.in.Running && st != views.StatusApproval {
			st = views.StatusRunning
		}
		rows[i] = views.PickerRow{ID: e.in.Session.ID, Name: e.in.Session.Name, Dir: projectLabel(e.in.Session), Here: e.here,
			Status: st, Age: shortAge(now.Sub(e.in.LastUsed)), Prompt: e.in.LastPrompt}
	}
	return rows
}

// worksIn reports whether a session works in dir: its workspace, or (a fork) its project.
func worksIn(s *api.Session, dir string) bool {
	if dir == "" {
		return false
	}
	dir = filepath.Clean(dir)
	return filepath.Clean(s.Workspace) == dir || (s.Settings["project"] != "" && filepath.Clean(s.Settings["project"]) == dir)
}

// shortAge renders a duration in at most four cells: 45s, 12m, 5h, 3d, 9w.
func shortAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 14*24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
	return fmt.Sprintf("%dw", min(int(d.Hours()/24/7), 999))
}

// pickModel is the Bubble Tea program of the picker.
type pickModel struct {
	opts   PickOptions
	common *views.Common
	p      *views.Picker
	chosen string
}

// newPickModel builds the picker program over rows.
func newPickModel(opts PickOptions, rows []views.PickerRow) *pickModel {
	st, err := themes.ByName(opts.Theme, true, themes.NoColorRequested())
	if err != nil {
		st = themes.Dark()
	}
	m := &pickModel{opts: opts, common: views.NewCommon(st)}
	m.p = views.NewPicker(m.common)
	m.p.SetRows(rows)
	return m
}

// Init asks for the terminal's background when the theme follows it.
func (m *pickModel) Init() tea.Cmd {
	if m.opts.Theme == "" || m.opts.Theme == themes.NameAuto {
		return tea.RequestBackgroundColor
	}
	return nil
}

// Update routes messages to the picker and quits on its answer.
func (m *pickModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.p.SetSize(msg.Width, msg.Height)
		return m, nil
	case tea.BackgroundColorMsg:
		if st, err := themes.ByName(m.opts.Theme, msg.IsDark(), themes.NoColorRequested()); err == nil {
			m.common.SetStyles(st)
		}
		return m, nil
	case views.PickedMsg:
		m.chosen = msg.ID
		return m, tea.Quit
	}
	_, cmd := m.p.Update(msg)
	return m, cmd
}

// View draws the picker full screen.
func (m *pickModel) View() tea.View {
	v := tea.NewView(m.p.View())
	v.AltScreen = true
	v.WindowTitle = "exo · resume"
	return v
}

// pickerRowsMsg carries the sessions for the /resume picker.
type pickerRowsMsg struct {
	rows []views.PickerRow
	err  error
}

// resumeCmd lists the sessions for /resume, the picker inside the app.
func (m *Model) resumeCmd() tea.Cmd {
	c, ws := m.c, m.opts.Workspace
	if abs, err := filepath.Abs(ws); err == nil && ws != "" {
		ws = abs
	}
	return func() tea.Msg {
		all, err := c.ListSessions(bg)
		return pickerRowsMsg{rows: PickerRows(all, ws, time.Now()), err: err}
	}
}

// onPicker opens the /resume picker over the app, and switches to the session chosen.
func (m *Model) onPicker(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case pickerRowsMsg:
		if msg.err != nil {
			return m.say("/resume: "+msg.err.Error(), true)
		}
		p := views.NewPicker(m.common)
		p.SetRows(msg.rows)
		m.overlay = p
		m.resize()
	case views.PickedMsg:
		m.overlay = nil
		m.resize()
		if msg.ID != "" && msg.ID != m.current() {
			return m.switchTo(msg.ID)
		}
	}
	return nil
}
