package app

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"exo/harness/api"
)

// frameRate is the renderer's frame rate while something changes: 30 frames a second keeps
// streaming smooth. While nothing changes the renderer does not wake at all (exo's patched
// Bubble Tea, app/internal/bubbletea/PATCH.md).
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
