package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"exo/harness/api"
	"exo/harness/relay"
)

// testCLI runs "count" (the daemon's sessions, through the in-process client it is given) and
// "hang" (until the client goes or the daemon stops); it accepts nothing else.
var testCLI = &CLI{
	Accepts: func(args []string) bool { return len(args) > 0 && (args[0] == "count" || args[0] == "hang") },
	Run: func(ctx context.Context, c api.Client, inv relay.Invocation, sio relay.ServerIO) int {
		if inv.Args[0] == "hang" {
			io.WriteString(sio.Stdout, "hanging\n")
			<-ctx.Done()
			return 0
		}
		all, err := c.ListSessions(ctx)
		if err != nil {
			fmt.Fprintln(sio.Stderr, err)
			return 1
		}
		c.Close() // must not close the daemon's service
		fmt.Fprintf(sio.Stdout, "%d sessions in %s\n", len(all), inv.Dir)
		return 7
	},
}

// invocation is a command line as a thin client of this process would send it.
func invocation(home string, args ...string) relay.Invocation {
	env, set := relay.Environment()
	return relay.Invocation{Args: args, Dir: "/client/dir", Home: home, Env: env, Set: set}
}

func TestRelayedCommandLine(t *testing.T) {
	f := serveCLI(t, 0, testCLI)
	ctx := context.Background()
	home := f.srv.info.Home
	if _, err := f.c.NewSession(ctx, api.NewSessionRequest{Name: "one"}); err != nil {
		t.Fatal(err)
	}
	proto := strconv.Itoa(Protocol)
	run := func(inv relay.Invocation) (int, string, error) {
		t.Helper()
		c, err := relay.Start(f.sock, proto, BuildID(), inv)
		if err != nil {
			return 0, "", err
		}
		var out bytes.Buffer
		code, err := c.Wait(relay.Stdio{Stdout: &out, Stderr: &out})
		return code, out.String(), err
	}
	code, out, err := run(invocation(home, "count"))
	if err != nil || code != 7 || out != "1 sessions in /client/dir\n" {
		t.Fatalf("count: %d %q %v", code, out, err)
	}
	if _, err := f.c.ListSessions(ctx); err != nil {
		t.Fatalf("the relayed command closed the daemon's service: %v", err)
	}
	// refused, each time before anything runs: the client runs the full exo
	if _, err := relay.Start(f.sock, proto, "another-build", invocation(home, "count")); !errors.Is(err, relay.ErrNotServed) {
		t.Fatalf("another build: %v", err)
	}
	if _, err := relay.Start(f.sock, "99", BuildID(), invocation(home, "count")); !errors.Is(err, relay.ErrNotServed) {
		t.Fatalf("another protocol: %v", err)
	}
	other := invocation(home, "count")
	other.Env = map[string]string{"TZ": "Pacific/Chatham-not-the-daemon's"}
	for name, inv := range map[string]relay.Invocation{
		"not relayed":  invocation(home, "secret", "set"),
		"other home":   invocation(home+"-other", "count"),
		"other env":    other,
		"relative dir": {Args: []string{"count"}, Dir: "rel", Home: home, Env: invocation(home).Env},
	} {
		if _, out, err := run(inv); !errors.Is(err, relay.ErrNotServed) || out != "" {
			t.Fatalf("%s: %v, output %q", name, err, out)
		}
	}
}

// A relayed command keeps the daemon from idling out, and a daemon that stops cuts it: the
// client says it lost the daemon.
func TestRelayedCommandHoldsAndIsCutAtStop(t *testing.T) {
	f := serveCLI(t, 0, testCLI)
	c, err := relay.Start(f.sock, strconv.Itoa(Protocol), BuildID(), invocation(f.srv.info.Home, "hang"))
	if err != nil {
		t.Fatal(err)
	}
	out := &notifyWriter{wrote: make(chan struct{}, 1)}
	res := make(chan error, 1)
	go func() {
		_, err := c.Wait(relay.Stdio{Stdout: out, Stderr: io.Discard})
		res <- err
	}()
	<-out.wrote
	if f.srv.idleFor() != 0 {
		t.Fatal("a daemon running a relayed command counts as idle")
	}
	f.srv.Stop("test stop")
	select {
	case err := <-res:
		if err == nil || !strings.Contains(err.Error(), "lost the exo daemon") {
			t.Fatalf("after the daemon stopped: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the relayed command outlived its daemon")
	}
}

// notifyWriter signals its first write.
type notifyWriter struct{ wrote chan struct{} }

func (w *notifyWriter) Write(p []byte) (int, error) {
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

// A command line whose end stops the daemon (as one whose store failed under it does) still
// gets its output and exit code to the client.
func TestRelayedCommandStoppingTheDaemonEndsWhole(t *testing.T) {
	var srv *Server
	cli := &CLI{Accepts: func([]string) bool { return true }, Run: func(ctx context.Context, c api.Client, inv relay.Invocation, sio relay.ServerIO) int {
		srv.Stop("the store failed")
		time.Sleep(50 * time.Millisecond) // the shutdown races ahead of the exit code
		io.WriteString(sio.Stderr, "exo: the store is damaged\n")
		return 5
	}}
	f := serveCLI(t, 0, cli)
	srv = f.srv
	c, err := relay.Start(f.sock, strconv.Itoa(Protocol), BuildID(), invocation(f.srv.info.Home, "say"))
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	code, err := c.Wait(relay.Stdio{Stdout: io.Discard, Stderr: &errb})
	if err != nil || code != 5 || errb.String() != "exo: the store is damaged\n" {
		t.Fatalf("code %d err %v stderr %q", code, err, errb.String())
	}
}

// A daemon running as many relayed command lines as it takes (CLI.Max) refuses one more with a
// clear error, which the client reports instead of starting the full exo; the daemon serves its
// API all the while, and a new command line once one has ended.
func TestRelayedCommandLinesAreBounded(t *testing.T) {
	limited := *testCLI
	limited.Max = 2
	f := serveCLI(t, 0, &limited)
	proto := strconv.Itoa(Protocol)
	hang := func() (*relay.Conn, chan error) {
		t.Helper()
		c, err := relay.Start(f.sock, proto, BuildID(), invocation(f.srv.info.Home, "hang"))
		if err != nil {
			t.Fatal(err)
		}
		out := &notifyWriter{wrote: make(chan struct{}, 1)}
		res := make(chan error, 1)
		go func() {
			_, err := c.Wait(relay.Stdio{Stdout: out, Stderr: io.Discard})
			res <- err
		}()
		<-out.wrote
		return c, res
	}
	first, firstDone := hang()
	hang()
	_, err := relay.Start(f.sock, proto, BuildID(), invocation(f.srv.info.Home, "count"))
	if !errors.Is(err, relay.ErrBusy) || errors.Is(err, relay.ErrNotServed) || !strings.Contains(err.Error(), "already runs 2 command lines") {
		t.Fatalf("a third command line: %v", err)
	}
	if _, err := f.c.ListSessions(context.Background()); err != nil {
		t.Fatalf("the API at the relay limit: %v", err)
	}
	first.Close()
	<-firstDone
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c, err := relay.Start(f.sock, proto, BuildID(), invocation(f.srv.info.Home, "count"))
		if err == nil {
			if code, err := c.Wait(relay.Stdio{Stdout: io.Discard, Stderr: io.Discard}); err != nil || code != 7 {
				t.Fatalf("after one ended: %d %v", code, err)
			}
			break
		}
		if !errors.Is(err, relay.ErrBusy) || time.Now().After(deadline) {
			t.Fatalf("after one ended: %v", err)
		}
	}
}
