package views

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// spinnerFrames are the frames of the running spinner.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// SpinnerInterval is the time between spinner frames.
const SpinnerInterval = 100 * time.Millisecond

// SpinnerTickMsg advances every pane's spinner by one frame. The app owns
// the loop: it broadcasts the message to all panes and re-arms SpinnerTick.
type SpinnerTickMsg struct{}

// SpinnerTick returns a command that sends SpinnerTickMsg after one interval.
func SpinnerTick() tea.Cmd {
	return tea.Tick(SpinnerInterval, func(time.Time) tea.Msg { return SpinnerTickMsg{} })
}

// spinnerFrame returns the spinner glyph for frame n.
func spinnerFrame(n int) string { return spinnerFrames[n%len(spinnerFrames)] }
