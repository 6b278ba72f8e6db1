package relay

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrNotServed means the daemon did not take the command line: none listens on the socket, it
// is of another build or protocol, it predates the relay, or it declined the invocation. The
// caller runs the full exo instead, which starts, replaces or explains the daemon.
var ErrNotServed = errors.New("the daemon does not run this command line")

// ErrBusy means the daemon runs as many command lines for thin clients as it takes at once: the
// error says so, and the client says it to the user (the full exo would only add to the load).
var ErrBusy = errors.New("the exo daemon runs as many command lines as it takes at once")

// busyError is the daemon's own words for ErrBusy.
type busyError string

func (e busyError) Error() string { return string(e) }

// Is makes a busyError ErrBusy.
func (busyError) Is(target error) bool { return target == ErrBusy }

// dialTimeout bounds connecting and the handshake: a daemon that does not answer this soon is
// left to the full exo, which waits for it or says what is wrong.
var dialTimeout = 5 * time.Second

// Conn is a command line the daemon took.
type Conn struct {
	c   net.Conn
	r   *bufio.Reader
	wmu sync.Mutex
}

// Start connects to the daemon's socket and hands it the invocation. It returns ErrNotServed
// (wrapped, with the reason) when the daemon will not run it.
func Start(sock, protocol, build string, inv Invocation) (*Conn, error) {
	c, err := net.DialTimeout("unix", sock, dialTimeout)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotServed, err)
	}
	conn, err := handshake(c, protocol, build, inv)
	if err != nil {
		c.Close()
		return nil, err
	}
	return conn, nil
}

// handshake sends the upgrade request, reads the daemon's answer and, once it is 101, sends the
// invocation. Only then may the daemon run anything: a client that gives up before (a daemon
// slow to answer, or this process starved past the deadline) runs the full exo in its place,
// and had the invocation gone with the request, the daemon would have run the command line too
// (exo say saying it twice).
func handshake(c net.Conn, protocol, build string, inv Invocation) (*Conn, error) {
	body, err := json.Marshal(inv)
	if err != nil || len(body) > MaxFrame {
		return nil, fmt.Errorf("%w: the command line does not fit a frame (%d bytes)", ErrNotServed, len(body))
	}
	req := "POST " + Path + " HTTP/1.1\r\nHost: exo\r\nConnection: Upgrade\r\nUpgrade: " + Upgrade + "\r\n" +
		HeaderProtocol + ": " + protocol + "\r\n" + HeaderBuild + ": " + build + "\r\nContent-Length: 0\r\n\r\n"
	_ = c.SetDeadline(time.Now().Add(dialTimeout))
	if _, err := io.WriteString(c, req); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotServed, err)
	}
	r := bufio.NewReader(c)
	tp := textproto.NewReader(r)
	status, err := tp.ReadLine()
	if err != nil {
		return nil, fmt.Errorf("%w: no answer: %v", ErrNotServed, err)
	}
	head, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotServed, err)
	}
	f := strings.Fields(status)
	if len(f) >= 2 && f[1] == "503" {
		return nil, busyError(busyReason(r, head))
	}
	if len(f) < 2 || f[1] != "101" {
		return nil, fmt.Errorf("%w: the daemon answered %q", ErrNotServed, status)
	}
	// A write cut short leaves the daemon a partial frame: it runs nothing, and the full exo may.
	if err := WriteFrame(c, KindInvocation, body); err != nil {
		return nil, fmt.Errorf("%w: send the command line: %v", ErrNotServed, err)
	}
	_ = c.SetDeadline(time.Time{})
	return &Conn{c: c, r: r}, nil
}

// busyReason reads the body of the daemon's 503 (its reason, at most 4 KiB).
func busyReason(r *bufio.Reader, head textproto.MIMEHeader) string {
	n, err := strconv.Atoi(head.Get("Content-Length"))
	if err != nil || n <= 0 || n > 4<<10 {
		return ErrBusy.Error()
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return ErrBusy.Error()
	}
	return strings.TrimSpace(string(body))
}

// Stdio is the client's side of a relayed command.
type Stdio struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Interrupts delivers the user's Ctrl-C; each is relayed to the command.
	Interrupts <-chan struct{}
}

// Wait relays stdio until the command ends and returns its exit code. It returns ErrNotServed
// (wrapped) when the daemon declined the invocation before running anything, and another
// error when the connection was lost.
func (c *Conn) Wait(s Stdio) (int, error) {
	defer c.c.Close()
	done := make(chan struct{})
	defer close(done)
	go c.relayInterrupts(s.Interrupts, done)
	var once sync.Once
	first := true
	var buf []byte // output frames are read into one buffer (the writers copy what they keep)
	for {
		kind, p, err := readFrameInto(c.r, buf)
		if err != nil {
			return 1, fmt.Errorf("lost the exo daemon during the command: %v", err)
		}
		switch kind {
		case KindNotServed:
			if first {
				return 0, fmt.Errorf("%w: %s", ErrNotServed, p)
			}
			return 1, fmt.Errorf("the daemon stopped the command: %s", p)
		case KindStdout:
			_, _ = s.Stdout.Write(p)
			buf = p
		case KindStderr:
			_, _ = s.Stderr.Write(p)
			buf = p
		case KindStdinWanted:
			once.Do(func() { go c.relayStdin(s.Stdin) })
		case KindExit:
			code, err := strconv.Atoi(string(p))
			if err != nil {
				return 1, fmt.Errorf("the daemon sent exit code %q", p)
			}
			return code, nil
		default:
			return 1, fmt.Errorf("the daemon sent a frame of unknown kind %q", kind)
		}
		first = false
	}
}

// Close drops the connection, as a client that leaves does: the daemon ends the command.
func (c *Conn) Close() error { return c.c.Close() }

// send writes a frame to the daemon (from several goroutines).
func (c *Conn) send(kind byte, p []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return WriteFrame(c.c, kind, p)
}

// relayStdin copies the client's stdin to the daemon, then says it ended.
func (c *Conn) relayStdin(in io.Reader) {
	if in == nil {
		_ = c.send(KindStdinEOF, nil)
		return
	}
	buf := make([]byte, 64<<10)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			if c.send(KindStdin, buf[:n]) != nil {
				return
			}
		}
		if err != nil {
			_ = c.send(KindStdinEOF, nil)
			return
		}
	}
}

// relayInterrupts relays each Ctrl-C until the command ends.
func (c *Conn) relayInterrupts(in <-chan struct{}, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case _, ok := <-in:
			if !ok {
				return
			}
			if c.send(KindInterrupt, nil) != nil {
				return
			}
		}
	}
}
