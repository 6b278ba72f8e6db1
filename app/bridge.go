package app

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"exo/harness"
)

// batchWindow is how long the bridge gathers notices into one message, so PTY output and token
// deltas arrive at the frame rate rather than one message per chunk.
const batchWindow = 16 * time.Millisecond

// waitNotices is a command that waits for harness notices and delivers them in a batch; Update
// re-arms it after each batch.
func waitNotices(ch <-chan harness.Notice) tea.Cmd {
	return func() tea.Msg {
		n, ok := <-ch
		if !ok {
			return noticesClosedMsg{}
		}
		batch := []harness.Notice{n}
		deadline := time.After(batchWindow)
		for {
			select {
			case n, ok := <-ch:
				if !ok {
					return noticesMsg{batch}
				}
				batch = append(batch, n)
				if len(batch) >= 512 {
					return noticesMsg{batch}
				}
			case <-deadline:
				return noticesMsg{batch}
			}
		}
	}
}
