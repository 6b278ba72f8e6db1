package relay

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// maxStdinQueued is how much of the client's stdin the daemon holds unread: past it, the daemon
// reads no more from the client until the command has read some (the client's writes wait in
// turn), so a command that stops reading early (exo run - past its 64 MiB) still gets its
// error and exit code to a client that goes on sending.
const maxStdinQueued = 16 << 20

// invocationTimeout bounds the wait for the command line: the client sends it with its upgrade
// request, so one that has not arrived by then never will, and a client stopped mid-handshake
// would otherwise hold its connection and keep the daemon from idling out.
var invocationTimeout = 10 * time.Second

// ServerIO is the relayed command's side of the connection.
type ServerIO struct {
	// Stdin reads the client's stdin (asked for at the first read).
	Stdin io.Reader
	// Stdout and Stderr write to the client's.
	Stdout, Stderr io.Writer
	// Interrupts delivers the user's Ctrl-C.
	Interrupts <-chan struct{}
}

// Command runs one relayed command line and returns its exit code; ctx ends when the client
// goes away.
type Command func(ctx context.Context, inv Invocation, sio ServerIO) int

// Serve runs one command line on an upgraded connection whose reader r holds what the client
// sent after its request: it reads the invocation, lets decline refuse it (a non-empty reason
// sends NotServed: the client then runs the full exo), runs cmd with the relayed stdio and
// ends with its exit code. A panic in cmd ends the command with exit 1 and is returned with its
// stack, for the daemon's log.
func Serve(ctx context.Context, conn net.Conn, r *bufio.Reader, decline func(Invocation) string, cmd Command) (err error) {
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(invocationTimeout))
	kind, p, err := ReadFrame(r)
	if err != nil {
		return fmt.Errorf("read the command line: %w", err)
	}
	_ = conn.SetReadDeadline(time.Time{})
	if kind != KindInvocation {
		return fmt.Errorf("the client sent frame %q before its command line", kind)
	}
	var inv Invocation
	if err := json.Unmarshal(p, &inv); err != nil {
		return fmt.Errorf("decode the command line: %w", err)
	}
	s := &session{conn: conn}
	s.out = newBatch(s)
	if reason := decline(inv); reason != "" {
		return s.send(KindNotServed, []byte(reason))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.stdin = newStdinQueue(func() { _ = s.send(KindStdinWanted, nil) }, func() { _ = s.out.flush() })
	interrupts := make(chan struct{}, 4)
	go s.readClient(r, cancel, interrupts)
	code := 1
	func() {
		defer func() {
			if v := recover(); v != nil {
				_, _ = s.out.write(KindStderr, []byte(fmt.Sprintf("exo: internal error in the daemon: %v (exo daemon logs has the details)\n", v)))
				err = fmt.Errorf("a relayed command panicked: %v\n%s", v, debug.Stack()) // not its arguments: a prompt may be private
			}
		}()
		code = cmd(ctx, inv, ServerIO{Stdin: s.stdin, Stdout: batchWriter{s.out, KindStdout}, Stderr: batchWriter{s.out, KindStderr}, Interrupts: interrupts})
	}()
	s.stdin.end()
	_ = s.out.stop()
	if werr := s.send(KindExit, []byte(strconv.Itoa(code))); err == nil && werr != nil && ctx.Err() == nil && !clientGone(werr) {
		err = fmt.Errorf("send the exit code: %w", werr)
	}
	return err
}

// clientGone says whether a write failed because the client closed its end (it was killed, or
// left at a Ctrl-C): its business, not the daemon's, so nothing for the daemon's log.
func clientGone(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed)
}

// session is the daemon's side of one relayed command.
type session struct {
	conn  net.Conn
	wmu   sync.Mutex
	out   *batch
	stdin *stdinQueue
}

// send writes one frame to the client after the output batched before it.
func (s *session) send(kind byte, p []byte) error {
	if err := s.out.flush(); err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return WriteFrame(s.conn, kind, p)
}

// readClient takes the client's stdin and Ctrl-C until it goes away, then cancels the command.
func (s *session) readClient(r *bufio.Reader, cancel context.CancelFunc, interrupts chan<- struct{}) {
	defer cancel()
	for {
		kind, p, err := ReadFrame(r)
		if err != nil {
			s.stdin.fail(fmt.Errorf("the client went away: %w", err))
			return
		}
		switch kind {
		case KindStdin:
			if err := s.stdin.add(p); errors.Is(err, errCommandEnded) {
				return // Serve sends the exit code and closes the connection
			} else if err != nil {
				s.stdin.fail(err)
				s.conn.Close()
				return
			}
		case KindStdinEOF:
			s.stdin.fail(io.EOF)
		case KindInterrupt:
			select {
			case interrupts <- struct{}{}:
			default:
			}
		default:
			s.stdin.fail(fmt.Errorf("the client sent a frame of unknown kind %q", kind))
			s.conn.Close()
			return
		}
	}
}

// stdinQueue holds the client's stdin until the command reads it; the first read asks the
// client for it.
type stdinQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	err    error
	asked  bool
	ended  bool // the command returned: nothing reads any more
	onAsk  func()
	onWait func() // before a read waits: the output so far is sent
}

// errCommandEnded is what add returns once the command has returned.
var errCommandEnded = errors.New("the command ended")

func newStdinQueue(onAsk, onWait func()) *stdinQueue {
	q := &stdinQueue{onAsk: onAsk, onWait: onWait}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// add queues bytes of stdin, waiting while maxStdinQueued bytes are unread, until the command
// ends (errCommandEnded). It refuses stdin the command has not asked for: a client relays it only
// once asked, and a command that never reads must not hold a client's stdin in the daemon.
func (q *stdinQueue) add(p []byte) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.asked {
		return errors.New("the client sent stdin the command did not ask for")
	}
	for len(q.buf) > 0 && len(q.buf)+len(p) > maxStdinQueued && !q.ended {
		q.cond.Wait()
	}
	if q.ended {
		return errCommandEnded
	}
	q.buf = append(q.buf, p...)
	q.cond.Broadcast()
	return nil
}

// end says the command returned: a client's stdin waiting for room is not read any more.
func (q *stdinQueue) end() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ended = true
	q.cond.Broadcast()
}

// fail ends stdin with err (io.EOF for its end) once what is queued has been read.
func (q *stdinQueue) fail(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err == nil {
		q.err = err
	}
	q.cond.Broadcast()
}

// Read reads queued stdin, asking the client for it the first time.
func (q *stdinQueue) Read(p []byte) (int, error) {
	q.mu.Lock()
	if !q.asked {
		q.asked = true
		q.mu.Unlock()
		q.onAsk()
		q.mu.Lock()
	}
	defer q.mu.Unlock()
	if len(q.buf) == 0 && q.err == nil && q.onWait != nil {
		q.mu.Unlock()
		q.onWait()
		q.mu.Lock()
	}
	for len(q.buf) == 0 && q.err == nil {
		q.cond.Wait()
	}
	if len(q.buf) == 0 {
		return 0, q.err
	}
	n := copy(p, q.buf)
	q.buf = q.buf[n:]
	q.cond.Broadcast() // room for the client's next stdin
	return n, nil
}
