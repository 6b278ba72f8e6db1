package app

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/governance"
	"exo/harness/plugins"
)

// Run opens the full-screen UI over a harness until the user quits.
func Run(h *harness.Harness, opts Options) error {
	var xo executor.Options
	if err := governance.Install(h, &xo, opts.Workspace, opts.OverrideGovernance); err != nil {
		return fmt.Errorf("%w (run 'exo compile', or start with --override-governance)", err)
	}
	pl := plugins.Install(h, &xo)
	defer pl.Close()
	x := executor.New(h, xo)
	m := New(h, x, opts)
	m.tracker = governance.NewTracker(h)
	_, err := tea.NewProgram(m).Run()
	x.StopAgents() // subagents still running are cancelled; their parents get the report
	if err != nil {
		return fmt.Errorf("terminal UI: %w", err)
	}
	return nil
}
