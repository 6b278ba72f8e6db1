package cli

import (
	"context"
	"fmt"
	"sync"
	"time"

	"exo/harness/api"
	"exo/views/plaintext"
)

// progressText renders a progress notice for stderr ("" when it ends).
func progressText(p *api.Progress) string {
	switch {
	case p.Finished:
		return ""
	case p.Total < 0:
		return "exo: snapshotting the workspace: scanning files…"
	}
	return fmt.Sprintf("exo: snapshotting the workspace: %d/%s", p.Done, plaintext.Plural(p.Total, "file"))
}

// printProgress shows a progress notice on stderr as one line that rewrites itself (exo's own
// text, written past termSafe, which would take the line erase out); the end clears it.
func (e *env) printProgress(p *api.Progress) {
	if t := progressText(p); t != "" {
		fmt.Fprintf(e.rawStderr, "\r\033[K%s", t)
		return
	}
	fmt.Fprint(e.rawStderr, "\r\033[K")
}

// watchProgress prints a session's progress notices on stderr until the returned function is
// called (for commands that do not follow the session otherwise, like exo exec).
func (e *env) watchProgress(c api.Client, s *api.Session) func() {
	ctx, cancel := context.WithCancel(context.Background())
	st, err := c.State(ctx, s.Branch)
	var w *api.Watcher
	if err == nil {
		w, err = c.Watch(ctx, api.WatchRequest{Session: s.ID, After: st.Head, Client: "progress"})
	}
	if err != nil {
		cancel()
		return func() {}
	}
	done := make(chan struct{})
	var mu sync.Mutex
	shown := false
	go func() {
		defer close(done)
		for n := range w.C {
			if n.Progress != nil {
				mu.Lock()
				e.printProgress(n.Progress)
				shown = !n.Progress.Finished
				mu.Unlock()
			}
		}
	}()
	return func() {
		// The progress stream is not the command's: give a started report a moment to end.
		for i := 0; i < 50 && shownNow(&mu, &shown); i++ {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
		w.Close()
		<-done
		if shownNow(&mu, &shown) {
			fmt.Fprint(e.rawStderr, "\r\033[K")
		}
	}
}

// shownNow reads a flag under its lock.
func shownNow(mu *sync.Mutex, b *bool) bool {
	mu.Lock()
	defer mu.Unlock()
	return *b
}
