//go:build linux

package provider

import (
	"net"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// gatherConn is a TCP connection whose reads wait, in the kernel, for a batch of bytes.
//
// Before a read that follows a read, it raises the socket's SO_RCVLOWAT to the read's size (at
// most a quarter of the receive buffer), so that the kernel does not wake the reader for each
// small segment, and arms a timer that lowers it back to one byte after gatherWait: the kernel
// then wakes the reader at once if anything came. A read that finds bytes waiting returns them at once whatever the low-water
// mark, so the mark only delays waking a reader that is already waiting, by at most
// gatherWait. A read after a write (a request's answer starting) does not gather.
type gatherConn struct {
	net.Conn // a *net.TCPConn, held as a plain net.Conn so that every read and write comes here
	raw      syscall.RawConn
	timer    *time.Timer

	mu     sync.Mutex
	limit  int  // the highest mark: a quarter of the socket's receive buffer
	mark   int  // the low-water mark set on the socket (0: the kernel's default, one byte)
	wrote  bool // the last operation was a write
	failed bool // setsockopt failed: gather no more
}

// gathering wraps a TCP connection; anything else is returned as it is.
func gathering(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok || gatherProbe() != nil {
		return c
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	// A mark above a quarter of the receive buffer would make the kernel grow the buffer and
	// clamp the TCP window to the mark (tcp_set_rcvlowat), slowing a large answer.
	limit := 0
	_ = raw.Control(func(fd uintptr) {
		if n, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF); err == nil {
			limit = n / 4
		}
	})
	if limit < 2 {
		return c
	}
	g := &gatherConn{Conn: tc, raw: raw, wrote: true, limit: limit}
	g.timer = time.AfterFunc(time.Hour, g.lower)
	g.timer.Stop()
	return g
}

// setMark sets the socket's low-water mark; the caller holds mu.
func (g *gatherConn) setMark(n int) {
	if g.failed || g.mark == n {
		return
	}
	var serr error
	err := g.raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVLOWAT, max(n, 1))
	})
	if err != nil || serr != nil {
		g.failed = true
		return
	}
	g.mark = n
}

// lower sets the low-water mark back to one byte, waking a waiting reader if bytes came.
func (g *gatherConn) lower() {
	g.mu.Lock()
	g.setMark(0)
	g.mu.Unlock()
}

// Read reads what is there, or waits for len(p) bytes, gatherWait or the end of the stream,
// whichever comes first.
func (g *gatherConn) Read(p []byte) (int, error) {
	g.mu.Lock()
	if !g.wrote && !g.failed && len(p) > 1 {
		g.setMark(min(len(p), g.limit))
		g.timer.Reset(gatherWait)
	}
	g.wrote = false
	g.mu.Unlock()
	return g.Conn.Read(p)
}

// Write writes p; the read that follows does not gather.
func (g *gatherConn) Write(p []byte) (int, error) {
	g.mu.Lock()
	g.wrote = true
	g.mu.Unlock()
	return g.Conn.Write(p)
}

// Close stops the timer and closes the connection.
func (g *gatherConn) Close() error {
	g.timer.Stop()
	return g.Conn.Close()
}
