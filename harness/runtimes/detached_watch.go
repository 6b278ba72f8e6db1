package runtimes

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"
)

// WatchDetached records each detached task's end as soon as its runner writes it (the daemon
// runs this), instead of when the next command looks. It returns when ctx ends.
func (rs *Runtimes) WatchDetached(ctx context.Context) error {
	dir := rs.tasksDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		return err
	}
	subs, _ := filepath.Glob(filepath.Join(dir, "bg-*"))
	for _, d := range subs {
		if t, err := readTask(d); err == nil && !t.Recorded {
			_ = w.Add(d)
		}
	}
	rs.RecordDetached() // ends written before the watch began
	for {
		select {
		case <-ctx.Done():
			return nil
		case err, ok := <-w.Errors:
			if !ok {
				return err
			}
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			rs.onTaskFileEvent(w, dir, ev)
		}
	}
}

// onTaskFileEvent follows new task folders and records ends when a task file changes.
func (rs *Runtimes) onTaskFileEvent(w *fsnotify.Watcher, dir string, ev fsnotify.Event) {
	if filepath.Dir(ev.Name) == dir && strings.HasPrefix(filepath.Base(ev.Name), "bg-") {
		if ev.Has(fsnotify.Create) {
			_ = w.Add(ev.Name)
		}
		return
	}
	if filepath.Base(ev.Name) == "task.json" && ev.Op&(fsnotify.Create|fsnotify.Write|fsnotify.Rename) != 0 {
		rs.RecordDetached()
	}
}
