package app

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"exo/harness/api"
)

// frameRate is the renderer's frame rate. Bubble Tea's renderer wakes at this rate even when
// nothing changes (it then writes nothing); 30 frames a second keeps streaming smooth and
// halves the idle wake-ups of the default 60.
const frameRate = 30

// Run opens the full-screen UI over a harness client until the user quits. Turns the user
// chooses to keep running go on in the harness after the UI is gone.
func Run(c api.Client, opts Options) error {
	m := New(c, opts)
	_, err := tea.NewProgram(m, tea.WithFPS(frameRate)).Run()
	m.closeWatch()
	if err != nil {
		return fmt.Errorf("terminal UI: %w", err)
	}
	return nil
}
