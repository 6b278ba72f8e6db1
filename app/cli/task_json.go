package cli

import (
	"time"

	"exo/harness/api"
)

// taskJSON is a background task as `exo task ls --json` prints it: its state in a word, and
// no exit code or end time while it runs (the stored record says exit 0 and the zero time).
type taskJSON struct {
	api.DetachedTask
	State    string     `json:"state"`
	ExitCode *int       `json:"exit_code"`
	Ended    *time.Time `json:"ended,omitempty"`
}

// tasksJSON converts tasks for printing; an empty list stays an empty array.
func tasksJSON(ts []api.DetachedTask) []taskJSON {
	out := make([]taskJSON, 0, len(ts))
	for _, t := range ts {
		j := taskJSON{DetachedTask: t, State: t.State()}
		if t.Done {
			code, ended := t.ExitCode, t.Ended
			j.ExitCode, j.Ended = &code, &ended
		}
		out = append(out, j)
	}
	return out
}
