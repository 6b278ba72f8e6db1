package cli

import (
	"context"
	"fmt"

	"exo/harness/api"
)

// runQueued waits for a prompt that was queued because a turn ran on the session: its turn
// starts when that one ends. The running turn's output is not this run's, so nothing streams;
// the answer is printed when its turn ends. Ctrl-C takes the prompt back while it waits (the
// running turn, someone else's, goes on) or cancels its turn once it runs.
func (e *env) runQueued(ctx context.Context, c api.Client, s *api.Session, f runFlags, started api.TurnStarted) error {
	if f.detach {
		fmt.Fprintln(e.stdout, s.ID)
	}
	fmt.Fprintf(e.stderr, "a turn runs on %s: this prompt is queued and sent when it ends (exo tail %s follows it)\n", s.Name, s.Name)
	if f.detach {
		return nil
	}
	stop := e.onInterrupt("taking the queued prompt back", func(ctx context.Context) error {
		if err := c.Unqueue(ctx, s.ID, started.ID); err != nil { // sent already: its turn runs
			return c.CancelTurn(ctx, s.ID)
		}
		return nil
	})
	defer stop()
	res, err := c.WaitTurn(ctx, s.ID, started.ID)
	if err == nil && f.format == formatText && res.Response != "" {
		fmt.Fprint(e.stdout, res.Response)
	}
	return e.finishRun(s, f, res, err)
}
