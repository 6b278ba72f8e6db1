package views

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
)

// maxQueueLines bounds the queued prompts the input lists; more are counted on a last line.
const maxQueueLines = 3

// takeBackBinding is the key that takes the newest queued prompt back into the input.
var takeBackBinding = key.NewBinding(key.WithKeys("up"), key.WithHelp("↑ (empty prompt)", "take back a queued prompt"))

// QueuedLine is a prompt sent while a turn runs, waiting for it: sent when the turn ends, or,
// with Steer, taken by the turn at its next step.
type QueuedLine struct {
	Text  string
	Steer bool
}

// SetQueued shows the session's queued prompts above the editor, oldest first (nil: none).
func (in *Input) SetQueued(q []QueuedLine) { in.queued = q }

// SetBusy says a turn runs on the session: enter queues and ctrl+s steers (the hint says so).
func (in *Input) SetBusy(b bool) { in.busy = b }

// Queued returns the queued prompts shown.
func (in *Input) Queued() []QueuedLine { return in.queued }

// queueLines is how many lines the queued prompts take.
func (in *Input) queueLines() int {
	if len(in.queued) > maxQueueLines {
		return maxQueueLines + 1
	}
	return len(in.queued)
}

// queueView renders the queued prompts, one line each, the newest last.
func (in *Input) queueView(w int) []string {
	st := in.styles()
	var out []string
	shown := in.queued
	if len(shown) > maxQueueLines {
		out = append(out, st.Text.Dim.Render(truncate(fmt.Sprintf("  … %d more queued", len(shown)-maxQueueLines), w)))
		shown = shown[len(shown)-maxQueueLines:]
	}
	for _, q := range shown {
		label := "⏸ queued  "
		if q.Steer {
			label = "↪ steer   "
		}
		out = append(out, st.Text.Muted.Render(label)+st.Text.Normal.Render(truncate(strings.Join(strings.Fields(q.Text), " "), max(w-10, 1))))
	}
	return out
}
