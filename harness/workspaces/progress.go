package workspaces

import (
	"os"
	"sync"
	"time"

	"exo/harness/api"
	"exo/sandbox"
)

// progressQuiet is how long a snapshot runs before its progress is published: quick ones stay
// silent. EXO_PROGRESS_AFTER (a Go duration) changes it, for tests.
var progressQuiet = sync.OnceValue(func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("EXO_PROGRESS_AFTER")); err == nil && d >= 0 {
		return d
	}
	return 500 * time.Millisecond
})

// ProgressReporter publishes a session's snapshot progress once a snapshot has run for
// progressQuiet (a timer covers a long scan that reports nothing), and its end when anything
// was published. It is the runtime room's Hooks.Progress, given each snapshotter it starts.
func (wk *Workspaces) ProgressReporter(sessionID string) sandbox.ProgressFunc {
	var mu sync.Mutex
	var start time.Time
	var shown bool
	var timer *time.Timer
	publish := func(p sandbox.Progress) {
		shown = true
		wk.log.Publish(api.Notice{Session: sessionID, Progress: &api.Progress{Task: "snapshot", Done: p.Done, Total: p.Total, Finished: p.Finished}})
	}
	return func(p sandbox.Progress) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case p.Finished:
			if timer != nil {
				timer.Stop()
			}
			if shown {
				publish(p)
			}
			shown, start = false, time.Time{}
		case p.Total < 0:
			start, shown = time.Now(), false
			timer = time.AfterFunc(progressQuiet(), func() {
				mu.Lock()
				defer mu.Unlock()
				if !shown && !start.IsZero() {
					publish(sandbox.Progress{Total: -1})
				}
			})
		case time.Since(start) >= progressQuiet():
			publish(p)
		}
	}
}
