package relay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serveOne listens on a unix socket and answers each connection like the daemon does: 101 for
// the right build, 409 otherwise, then Serve with cmd.
func serveOne(t testing.TB, build string, decline func(Invocation) string, cmd Command) (string, <-chan error) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "d.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	errc := make(chan error, 8)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				r := bufio.NewReader(c)
				req, err := http.ReadRequest(r)
				if err != nil {
					errc <- err
					c.Close()
					return
				}
				if req.Header.Get(HeaderBuild) != build || req.Header.Get("Upgrade") != Upgrade || req.URL.Path != Path {
					io.WriteString(c, "HTTP/1.1 409 Conflict\r\nContent-Length: 0\r\n\r\n")
					c.Close()
					return
				}
				io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: "+Upgrade+"\r\n\r\n")
				errc <- Serve(context.Background(), c, r, decline, cmd)
			}()
		}
	}()
	return sock, errc
}

func accept(Invocation) string { return "" }

func TestRelayRunsCommandWithStdio(t *testing.T) {
	var got Invocation
	sock, errc := serveOne(t, "b1", accept, func(ctx context.Context, inv Invocation, sio ServerIO) int {
		got = inv
		io.WriteString(sio.Stdout, "out:")
		in, err := io.ReadAll(sio.Stdin)
		if err != nil {
			io.WriteString(sio.Stderr, err.Error())
			return 9
		}
		sio.Stdout.Write(bytes.ToUpper(in))
		io.WriteString(sio.Stderr, "to stderr\n")
		big := bytes.Repeat([]byte{0xff, 'x'}, MaxFrame) // binary and bigger than a frame
		sio.Stdout.Write(big)
		return 3
	})
	c, err := Start(sock, "1", "b1", Invocation{Args: []string{"run", "-"}, Dir: "/w", Home: "/h", Env: map[string]string{"TZ": "UTC"}})
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code, err := c.Wait(Stdio{Stdin: strings.NewReader("hello\x00world"), Stdout: &out, Stderr: &errb})
	if err != nil || code != 3 {
		t.Fatalf("code %d err %v", code, err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	want := "out:HELLO\x00WORLD" + string(bytes.Repeat([]byte{0xff, 'x'}, MaxFrame))
	if out.String() != want || errb.String() != "to stderr\n" {
		t.Fatalf("stdout %d bytes (want %d), stderr %q", out.Len(), len(want), errb.String())
	}
	if got.Dir != "/w" || got.Home != "/h" || got.Env["TZ"] != "UTC" || strings.Join(got.Args, " ") != "run -" {
		t.Fatalf("invocation %+v", got)
	}
}

// A command that never reads stdin leaves the client's stdin unread: a script's next command
// gets it whole.
func TestRelayLeavesStdinUnread(t *testing.T) {
	sock, errc := serveOne(t, "b1", accept, func(ctx context.Context, inv Invocation, sio ServerIO) int {
		io.WriteString(sio.Stdout, "listed\n")
		return 0
	})
	c, err := Start(sock, "1", "b1", Invocation{Args: []string{"sessions"}, Dir: "/"})
	if err != nil {
		t.Fatal(err)
	}
	in := &countingReader{r: strings.NewReader("line one\nline two\n")}
	var out bytes.Buffer
	if code, err := c.Wait(Stdio{Stdin: in, Stdout: &out, Stderr: io.Discard}); err != nil || code != 0 {
		t.Fatalf("code %d err %v", code, err)
	}
	<-errc
	if in.n != 0 || out.String() != "listed\n" {
		t.Fatalf("read %d bytes of stdin; out %q", in.n, out.String())
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestRelayInterruptReachesCommand(t *testing.T) {
	sock, errc := serveOne(t, "b1", accept, func(ctx context.Context, inv Invocation, sio ServerIO) int {
		io.WriteString(sio.Stdout, "waiting\n")
		select {
		case <-sio.Interrupts:
			io.WriteString(sio.Stderr, "interrupted\n")
			return 130
		case <-time.After(30 * time.Second):
			return 0
		}
	})
	c, err := Start(sock, "1", "b1", Invocation{Args: []string{"run", "x"}, Dir: "/"})
	if err != nil {
		t.Fatal(err)
	}
	ints := make(chan struct{}, 1)
	out := &signalOnWrite{ch: ints}
	var errb bytes.Buffer
	code, err := c.Wait(Stdio{Stdout: out, Stderr: &errb, Interrupts: ints})
	if err != nil || code != 130 || errb.String() != "interrupted\n" {
		t.Fatalf("code %d err %v stderr %q", code, err, errb.String())
	}
	<-errc
}

// signalOnWrite sends an interrupt once the command has written something.
type signalOnWrite struct{ ch chan struct{} }

func (s *signalOnWrite) Write(p []byte) (int, error) {
	select {
	case s.ch <- struct{}{}:
	default:
	}
	return len(p), nil
}

// A client that goes away ends the command's context; the daemon side returns.
func TestRelayClientGoneCancelsCommand(t *testing.T) {
	ended := make(chan error, 1)
	sock, errc := serveOne(t, "b1", accept, func(ctx context.Context, inv Invocation, sio ServerIO) int {
		io.WriteString(sio.Stdout, "started\n")
		select {
		case <-ctx.Done():
			ended <- ctx.Err()
		case <-time.After(30 * time.Second):
			ended <- errors.New("the command was not cancelled")
		}
		return 0
	})
	c, err := Start(sock, "1", "b1", Invocation{Args: []string{"tail", "s"}, Dir: "/"})
	if err != nil {
		t.Fatal(err)
	}
	if k, _, err := ReadFrame(c.r); err != nil || k != KindStdout {
		t.Fatalf("first frame %q %v", k, err)
	}
	c.c.Close() // the user's Ctrl-C: the client leaves
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	<-errc
}

func TestRelayNotServed(t *testing.T) {
	sock, _ := serveOne(t, "b1", func(inv Invocation) string { return "TZ differs" }, func(context.Context, Invocation, ServerIO) int {
		t.Error("a declined command ran")
		return 0
	})
	// another build: refused at the upgrade
	if _, err := Start(sock, "1", "b2", Invocation{Args: []string{"sessions"}}); !errors.Is(err, ErrNotServed) {
		t.Fatalf("other build: %v", err)
	}
	// declined: refused before anything runs
	c, err := Start(sock, "1", "b1", Invocation{Args: []string{"sessions"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(Stdio{Stdout: io.Discard, Stderr: io.Discard}); !errors.Is(err, ErrNotServed) || !strings.Contains(err.Error(), "TZ differs") {
		t.Fatalf("declined: %v", err)
	}
	// a command line too big for a frame: the full exo takes it
	if _, err := Start(sock, "1", "b1", Invocation{Args: []string{"run", strings.Repeat("x", MaxFrame)}}); !errors.Is(err, ErrNotServed) {
		t.Fatalf("huge command line: %v", err)
	}
	// nothing listens
	if _, err := Start(filepath.Join(t.TempDir(), "none.sock"), "1", "b1", Invocation{}); !errors.Is(err, ErrNotServed) {
		t.Fatalf("no daemon: %v", err)
	}
}

// A panic in the command ends it with exit 1 and a line on stderr; Serve returns the stack.
func TestRelayPanicIsContained(t *testing.T) {
	sock, errc := serveOne(t, "b1", accept, func(context.Context, Invocation, ServerIO) int { panic("boom") })
	c, err := Start(sock, "1", "b1", Invocation{Args: []string{"log", "s"}})
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	code, err := c.Wait(Stdio{Stdout: io.Discard, Stderr: &errb})
	if err != nil || code != 1 || !strings.Contains(errb.String(), "internal error in the daemon: boom") {
		t.Fatalf("code %d err %v stderr %q", code, err, errb.String())
	}
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "goroutine") {
		t.Fatalf("serve: %v", err)
	}
}

// A peer that is not exo (garbage, a huge length) is refused without reading gigabytes.
func TestReadFrameRefusesHugeAndCut(t *testing.T) {
	if _, _, err := ReadFrame(bufio.NewReader(bytes.NewReader([]byte{'o', 0xff, 0xff, 0xff, 0xff}))); err == nil || !strings.Contains(err.Error(), "not an exo peer") {
		t.Fatalf("huge: %v", err)
	}
	if _, _, err := ReadFrame(bufio.NewReader(bytes.NewReader([]byte{'o', 0, 0, 0, 9, 'a'}))); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("cut: %v", err)
	}
	var b bytes.Buffer
	if err := WriteFrame(&b, 'o', make([]byte, MaxFrame+1)); err == nil {
		t.Fatal("an oversized frame was written")
	}
}

// A daemon that dies mid-command (its connection cut after some output, no exit code): the
// client keeps the output and says it lost the daemon.
func TestRelayLostDaemon(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "d.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		r := bufio.NewReader(c)
		if _, err := http.ReadRequest(r); err != nil {
			c.Close()
			return
		}
		io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\n\r\n")
		if _, _, err := ReadFrame(r); err != nil { // the command line
			c.Close()
			return
		}
		WriteFrame(c, KindStdout, []byte("partial"))
		c.Close()
	}()
	c, err := Start(sock, "1", "b1", Invocation{Args: []string{"run", "x"}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	code, err := c.Wait(Stdio{Stdout: &out, Stderr: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "lost the exo daemon") || code != 1 || out.String() != "partial" {
		t.Fatalf("code %d err %v out %q", code, err, out.String())
	}
}
