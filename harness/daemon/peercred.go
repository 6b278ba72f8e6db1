package daemon

import (
	"fmt"
	"log/slog"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// peerListener accepts only connections from processes of this user: the peer's uid is read
// with SO_PEERCRED on every accept, and others are closed at once.
type peerListener struct {
	*net.UnixListener
	uid int
	log *slog.Logger
}

// Accept returns the next connection whose peer runs as the listener's user.
func (l *peerListener) Accept() (net.Conn, error) {
	for {
		c, err := l.AcceptUnix()
		if err != nil {
			return nil, err
		}
		uid, pid, err := peerCred(c)
		if err == nil && uid == l.uid {
			return c, nil
		}
		if err == nil {
			err = fmt.Errorf("uid %d (pid %d) is not uid %d", uid, pid, l.uid)
		}
		l.log.Warn("refused a connection", "reason", err)
		c.Close()
	}
}

// peerCred reads the uid and pid of the process at the other end of a unix connection.
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, 0, err
	}
	if cerr != nil {
		return -1, 0, fmt.Errorf("SO_PEERCRED: %w", cerr)
	}
	return int(cred.Uid), int(cred.Pid), nil
}

// listen binds the socket (0600, created under umask 077) and wraps it in the peer check.
func listen(path string, log *slog.Logger) (*peerListener, error) {
	old := unix.Umask(0o077)
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	unix.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	l.SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("chmod %s: %w", path, err)
	}
	return &peerListener{UnixListener: l, uid: os.Getuid(), log: log}, nil
}
