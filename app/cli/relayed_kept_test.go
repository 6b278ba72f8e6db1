package cli

import (
	"context"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"exo/harness/relay"
)

// trackedWriter is a relayed command line's output, whose collection the test watches.
type trackedWriter struct{ buf []byte }

func (w *trackedWriter) Write(p []byte) (int, error) { w.buf = append(w.buf, p...); return len(p), nil }

// relayOnce runs one command line as the daemon runs it for a thin client, its output going
// to a writer nothing else holds; freed is closed once that writer is collected.
func relayOnce(t *testing.T, args []string) (freed chan struct{}) {
	t.Helper()
	out := &trackedWriter{buf: make([]byte, 0, 64<<10)}
	freed = make(chan struct{})
	runtime.AddCleanup(out, func(ch chan struct{}) { close(ch) }, freed)
	sio := relay.ServerIO{Stdin: strings.NewReader(""), Stdout: out, Stderr: io.Discard}
	inv := relay.Invocation{Args: args, Dir: t.TempDir(), Home: t.TempDir()}
	if code := (&env{}).relayCLI().Run(context.Background(), nil, inv, sio); code != 0 {
		t.Fatalf("%q: exit %d", args, code)
	}
	return freed
}

// A command line the daemon ran for a thin client leaves nothing behind once it returns: cobra
// keeps flags' completion functions in a process-wide map, and every relayed exo run and exo
// sessions kept its command tree, its environment and its output buffers there for the
// daemon's life.
func TestRelayedCommandLineKeepsNothing(t *testing.T) {
	freed := relayOnce(t, []string{"--version"})
	deadline := time.After(10 * time.Second)
	for {
		runtime.GC()
		select {
		case <-freed:
			return
		case <-deadline:
			t.Fatal("the relayed command line's output writer is still reachable after it returned")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// A command line that asks for completions still gets flags completed.
func TestCompletionRequestRegistersFlags(t *testing.T) {
	e := &env{completing: completionRequest([]string{"__complete", "run", "--model", ""})}
	root := newRoot(e)
	run, _, err := root.Find([]string{"run"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := run.GetFlagCompletionFunc("model"); !ok {
		t.Fatal("exo __complete run --model: no completion for --model")
	}
	if completionRequest([]string{"run", "--model", "m", "hi"}) {
		t.Fatal("exo run is not a completion request")
	}
}
