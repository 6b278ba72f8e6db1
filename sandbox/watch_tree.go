package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"
)

// maxPending bounds the paths one batch gathers: past it the batch says Overflow instead, so
// an agent creating files without end cannot grow the watcher's memory (a consumer that sees
// Overflow looks at the whole workspace anyway).
const maxPending = 1024

// treeWatcher is the state of one recursive fsnotify watch. It runs only in the watcher's own
// child process (see Watch): fsnotify's bookkeeping can dereference nil when a watched folder
// and another path are swapped fast enough (fsnotify#652, open in v1.10.1), which would take
// the whole process down.
type treeWatcher struct {
	root string
	// realRoot is root with links resolved.
	realRoot string
	skip     []string
	private  []string
	fsw      *fsnotify.Watcher
	pending  map[string]bool
	over     bool
}

// watchTree watches root recursively (new directories included, skipped ones excluded)
// in this process and sends debounced batches of changed paths until ctx is done, then
// closes the channel. opts must have its defaults filled in.
func watchTree(ctx context.Context, root string, opts WatchOptions) (<-chan Changes, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		fsw.Close()
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	w := &treeWatcher{root: root, realRoot: real, skip: opts.SkipDirs, private: privateRels(root, opts.Private), fsw: fsw, pending: map[string]bool{}}
	if err := w.addTree(root, false); err != nil {
		fsw.Close()
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	out := make(chan Changes)
	go w.loop(ctx, opts.Debounce, out)
	return out, nil
}

// addTree watches dir and its subdirectories; with report it also records the files
// found, which may have been created before the watch was in place.
func (w *treeWatcher) addTree(dir string, report bool) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			if p != w.root && (slices.Contains(w.skip, d.Name()) || w.isPrivate(p)) {
				return filepath.SkipDir
			}
			if err := w.fsw.Add(p); err != nil {
				return err
			}
			if !w.inside(p) { // swapped for a link meanwhile: inotify followed it.
				w.fsw.Remove(p)
				return filepath.SkipDir
			}
			return nil
		}
		if report {
			w.record(p)
		}
		return nil
	})
}

// inside reports whether the watched folder p is (still) a real folder within the root:
// inotify follows links, so a folder swapped for one while it was added must not stay watched.
func (w *treeWatcher) inside(p string) bool {
	if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
		return false
	}
	real, err := filepath.EvalSymlinks(p)
	return err == nil && within(w.realRoot, real)
}

// record adds a changed path unless it lies in a skipped directory.
func (w *treeWatcher) record(p string) {
	rel, err := filepath.Rel(w.root, p)
	if err != nil || rel == "." || IsPrivate(rel, w.private) {
		return
	}
	for _, part := range splitPath(rel) {
		if slices.Contains(w.skip, part) {
			return
		}
	}
	if len(w.pending) >= maxPending {
		w.over = true
		return
	}
	w.pending[filepath.ToSlash(rel)] = true
}

// isPrivate reports whether p (beneath the root) is one of exo's own folders or in one.
func (w *treeWatcher) isPrivate(p string) bool {
	rel, err := filepath.Rel(w.root, p)
	return err == nil && IsPrivate(rel, w.private)
}

// splitPath splits a relative path into its components.
func splitPath(rel string) []string {
	var parts []string
	for rel != "." && rel != "" && rel != "/" {
		parts = append(parts, filepath.Base(rel))
		rel = filepath.Dir(rel)
	}
	return parts
}

// loop collects events and sends batches once no event arrived for the debounce time.
func (w *treeWatcher) loop(ctx context.Context, debounce time.Duration, out chan<- Changes) {
	defer close(out)
	defer w.fsw.Close()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var send chan<- Changes
	var batch Changes
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.event(ev)
			timer.Reset(debounce)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.over = true
				timer.Reset(debounce)
			}
		case <-timer.C:
			batch, send = w.take(batch), nil
			if len(batch.Paths) > 0 || batch.Overflow {
				send = out
			}
		case send <- batch:
			batch, send = Changes{}, nil
		}
	}
}

// event records one fsnotify event, watching new directories.
func (w *treeWatcher) event(ev fsnotify.Event) {
	w.record(ev.Name)
	if ev.Has(fsnotify.Create) {
		if fi, err := statDir(ev.Name); err == nil && fi {
			if !slices.Contains(w.skip, filepath.Base(ev.Name)) {
				w.addTree(ev.Name, true)
			}
		}
	}
}

// take merges the pending paths into batch and clears them.
func (w *treeWatcher) take(batch Changes) Changes {
	for p := range w.pending {
		batch.Paths = append(batch.Paths, p)
	}
	slices.Sort(batch.Paths)
	batch.Paths = slices.Compact(batch.Paths)
	batch.Overflow = batch.Overflow || w.over
	w.pending, w.over = map[string]bool{}, false
	return batch
}

// statDir reports whether p is a directory (not following a final symlink).
func statDir(p string) (bool, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return false, err
	}
	return fi.IsDir(), nil
}
