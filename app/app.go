package app

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"exo/harness"
	"exo/harness/executor"
)

// Run opens the full-screen UI over a harness until the user quits.
func Run(h *harness.Harness, opts Options) error {
	x := executor.New(h, executor.Options{})
	m := New(h, x, opts)
	if _, err := tea.NewProgram(m).Run(); err != nil {
		return fmt.Errorf("terminal UI: %w", err)
	}
	return nil
}
