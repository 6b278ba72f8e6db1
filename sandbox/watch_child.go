package sandbox

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

// watchChildArg follows HelperCommand on the command line of a watcher process, and
// watchChildEnv marks its environment: both must be present for init to run the watcher.
const (
	watchChildArg = "--workspace-watch"
	watchChildEnv = "EXO_WORKSPACE_WATCHER"
)

// watchMessage is one line the watcher process writes: first Ready (or Error), then batches.
type watchMessage struct {
	Ready bool   `json:"ready,omitempty"`
	Error string `json:"error,omitempty"`
	Changes
}

// init turns this process into a workspace watcher when Watch started it. It runs from init,
// before main or TestMain, so every executable that imports this package (exo-full, and each
// test binary) serves as the watcher without wiring of its own, and nothing else of the program
// runs in that process.
func init() {
	if os.Getenv(watchChildEnv) == "1" && len(os.Args) > 2 && os.Args[1] == HelperCommand && os.Args[2] == watchChildArg {
		os.Exit(watchChildMain(os.Args[3:], os.Stdin, os.Stdout))
	}
}

// watchChildMain watches the tree its flags name and writes JSON lines to out: {"ready":true}
// once the first walk is done (or {"error":…}), then one line per batch. It returns when in
// reaches its end (the parent closed it, or died) and exits non-zero on failure.
func watchChildMain(args []string, in io.Reader, out io.Writer) int {
	var opts WatchOptions
	var root string
	var debounce int64
	var skip, private multiFlag
	f := flag.NewFlagSet(watchChildArg, flag.ContinueOnError)
	f.SetOutput(io.Discard)
	f.StringVar(&root, "root", "", "folder to watch")
	f.Int64Var(&debounce, "debounce", int64(100*time.Millisecond), "debounce in nanoseconds")
	f.Var(&skip, "skip", "folder name not watched")
	f.Var(&private, "private", "exo's own folder, not watched")
	enc := json.NewEncoder(out)
	if err := f.Parse(args); err != nil || root == "" {
		enc.Encode(watchMessage{Error: fmt.Sprintf("watcher flags: %v (want --root)", err)})
		return 2
	}
	opts.Debounce, opts.SkipDirs, opts.Private = time.Duration(debounce), skip, private
	if opts.SkipDirs == nil {
		opts.SkipDirs = []string{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // the parent closes our input to stop us, and so does its death
		io.Copy(io.Discard, in)
		cancel()
	}()
	ch, err := watchTree(ctx, root, opts)
	if err != nil {
		enc.Encode(watchMessage{Error: err.Error()})
		return 1
	}
	if err := enc.Encode(watchMessage{Ready: true}); err != nil {
		return 1
	}
	for c := range ch {
		if err := enc.Encode(watchMessage{Changes: c}); err != nil {
			return 1 // the parent is gone
		}
	}
	if ctx.Err() == nil { // fsnotify closed its channels by itself: say so, to be restarted
		enc.Encode(watchMessage{Error: "fsnotify stopped delivering events"})
		return 1
	}
	return 0
}
