package relay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A client that upgrades and never sends its command line (stopped mid-handshake) is dropped
// after invocationTimeout: it does not hold its connection, and the daemon's idle timer, forever.
func TestRelaySilentClientIsDropped(t *testing.T) {
	old := invocationTimeout
	invocationTimeout = 100 * time.Millisecond
	defer func() { invocationTimeout = old }()
	srv, cli := net.Pipe()
	defer cli.Close()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), srv, bufio.NewReader(srv), func(Invocation) string { return "" }, func(context.Context, Invocation, ServerIO) int {
			t.Error("a command ran without a command line")
			return 0
		})
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "read the command line") || !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the daemon still waits for a command line that never came")
	}
}

// The daemon relays stdin only after the command asked for it: a client sending stdin unasked
// (not the thin exo) is dropped at once, instead of having up to 16 MiB of it held in the
// daemon's memory for a command that never reads it.
func TestRelayUnaskedStdinDropsClient(t *testing.T) {
	ended := make(chan error, 1)
	sock, errc := serveOne(t, "b1", accept, func(ctx context.Context, inv Invocation, sio ServerIO) int {
		select {
		case <-ctx.Done():
			ended <- nil
		case <-time.After(30 * time.Second):
			ended <- errors.New("the client that sent stdin unasked is still served")
		}
		return 0
	})
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	inv, _ := json.Marshal(Invocation{Args: []string{"sessions"}, Dir: "/"})
	req := "POST " + Path + " HTTP/1.1\r\nHost: exo\r\nUpgrade: " + Upgrade + "\r\nX-Exo-Build: b1\r\n\r\n"
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	WriteFrame(c, KindInvocation, inv)
	for i := 0; i < 4; i++ {
		if err := WriteFrame(c, KindStdin, make([]byte, 64<<10)); err != nil {
			break
		}
	}
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
	<-errc
}

// A client gone before its exit code is its own business: a write to its closed end is told
// apart from the daemon's own failures (which go to its log).
func TestClientGoneIsRecognised(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	peer, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	var werr error
	for i := 0; i < 100 && werr == nil; i++ {
		werr = WriteFrame(peer, KindExit, []byte("0"))
	}
	if !clientGone(werr) {
		t.Fatalf("writing to a closed client: %v, not recognised as the client gone", werr)
	}
	peer.Close()
	if err := WriteFrame(peer, KindExit, []byte("0")); !clientGone(err) {
		t.Fatalf("writing after close: %v", err)
	}
	if clientGone(errors.New("disk full")) {
		t.Fatal("any error counts as the client gone")
	}
}

// endless reads 'a's forever, counting them.
type endless struct{ n atomic.Int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	e.n.Add(int64(len(p)))
	return len(p), nil
}

// A command that stops reading stdin before its end (exo run - past its 64 MiB) while the client
// goes on sending: the daemon holds at most maxStdinQueued of it and reads no more from the
// client, and the command's message and exit code still reach the client (the daemon dropped
// it before, so it said it lost the daemon and the command's error went unseen).
func TestRelayStdinFloodKeepsTheExitCode(t *testing.T) {
	in := &endless{}
	sock, errc := serveOne(t, "b1", accept, func(ctx context.Context, inv Invocation, sio ServerIO) int {
		q := sio.Stdin.(*stdinQueue)
		if _, err := io.ReadFull(q, make([]byte, 10)); err != nil {
			io.WriteString(sio.Stderr, "read: "+err.Error())
			return 1
		}
		// wait until the client was dropped, or its stdin stopped flowing with the queue full
		last, since := int64(-1), time.Now()
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			q.mu.Lock()
			queued, failed := len(q.buf), q.err
			q.mu.Unlock()
			if failed != nil {
				break
			}
			if n := in.n.Load(); n != last {
				last, since = n, time.Now()
			} else if queued > maxStdinQueued-MaxFrame && time.Since(since) > 300*time.Millisecond {
				break
			}
		}
		q.mu.Lock()
		queued := len(q.buf)
		q.mu.Unlock()
		io.WriteString(sio.Stderr, fmt.Sprintf("too much stdin (%d bytes queued)\n", queued))
		return 2
	})
	c, err := Start(sock, "1", "b1", Invocation{Args: []string{"run", "-"}, Dir: "/"})
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	code, err := c.Wait(Stdio{Stdin: in, Stdout: io.Discard, Stderr: &errb})
	if err != nil || code != 2 || !strings.HasPrefix(errb.String(), "too much stdin") {
		t.Fatalf("code %d err %v stderr %q", code, err, errb.String())
	}
	var queued int
	fmt.Sscanf(errb.String(), "too much stdin (%d", &queued)
	if queued > maxStdinQueued {
		t.Fatalf("%d bytes of stdin queued, more than %d", queued, maxStdinQueued)
	}
	if err := <-errc; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// A client that gives up on a daemon slow to answer its upgrade runs the full exo instead, so
// the daemon must not have its command line: the client sends it only once the daemon said 101.
// (It went with the request before: a daemon answering after the deadline, or a client starved
// past it, ran the command line as the full exo ran it too, and exo say said it twice.)
func TestRelayGivenUpHandshakeRunsNothing(t *testing.T) {
	old := dialTimeout
	dialTimeout = 200 * time.Millisecond
	defer func() { dialTimeout = old }()
	sock := filepath.Join(t.TempDir(), "d.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	after := make(chan []byte, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		if _, err := http.ReadRequest(r); err != nil {
			after <- []byte("bad request: " + err.Error())
			return
		}
		rest, _ := io.ReadAll(r) // until the client gives up and closes
		after <- rest
	}()
	_, err = Start(sock, "1", "b1", Invocation{Args: []string{"say", "s", "once"}, Dir: "/"})
	if !errors.Is(err, ErrNotServed) {
		t.Fatalf("a daemon that does not answer: %v", err)
	}
	select {
	case rest := <-after:
		if len(rest) != 0 {
			t.Fatalf("the daemon got %q after the request of a client that gave up", rest)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the client did not close its connection")
	}
}
