//go:build linux

package provider

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// gatherProbe remembers whether this kernel wakes a reader when a socket's low-water mark is
// lowered under bytes already queued (probed once, on the first connection).
var gatherProbe = sync.OnceValue(probeGather)

// probeGather checks, on a loopback TCP connection, what gatherConn relies on: bytes below the
// low-water mark do not wake an edge-triggered epoll waiter (as Go's network poller waits), and
// lowering the mark then wakes it. A kernel that did not signal on lowering would leave a
// reader waiting for bytes that are there until more came; gathering is then not used. It
// costs about a millisecond, once.
func probeGather() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen on loopback: %w", err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	c, err := net.DialTimeout("tcp", l.Addr().String(), 5*time.Second)
	if err != nil {
		return fmt.Errorf("dial loopback: %w", err)
	}
	defer c.Close()
	srv := <-accepted
	if srv == nil {
		return errors.New("accept on loopback failed")
	}
	defer srv.Close()
	raw, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		return err
	}
	var perr error
	cerr := raw.Control(func(fd uintptr) { perr = probeFD(int(fd), srv) })
	return errors.Join(cerr, perr)
}

// probeFD runs the probe on the client socket fd; srv is the other end.
func probeFD(fd int, srv net.Conn) error {
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT, 1024); err != nil {
		return fmt.Errorf("set SO_RCVLOWAT: %w", err)
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return fmt.Errorf("epoll_create1: %w", err)
	}
	defer unix.Close(ep)
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLET | unix.EPOLLRDHUP, Fd: int32(fd)}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return fmt.Errorf("epoll_ctl: %w", err)
	}
	if _, err := srv.Write([]byte("gather")); err != nil {
		return err
	}
	// The bytes are queued (poll sees them at a mark of one byte) but must not wake the waiter.
	for deadline := time.Now().Add(5 * time.Second); ; {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT, 1); err != nil {
			return err
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if n, _ := unix.Poll(pfd, 10); n == 1 {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("loopback bytes did not arrive in 5 s")
		}
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT, 1024); err != nil {
		return err
	}
	events := make([]unix.EpollEvent, 1)
	for { // drain what the registration and the arrival signalled
		n, err := unix.EpollWait(ep, events, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("epoll_wait: %w", err)
		}
		if n == 0 {
			break
		}
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT, 1); err != nil {
		return err
	}
	for {
		n, err := unix.EpollWait(ep, events, 1000)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("epoll_wait: %w", err)
		}
		if n == 0 {
			return errors.New("lowering SO_RCVLOWAT does not wake a waiting reader on this kernel")
		}
		return nil
	}
}
