// Package relay runs an exo command line inside the daemon for a thin client, the way Bazel's
// client hands its command to its server: the client sends its arguments, working directory and
// the environment that matters, then relays stdin, stdout, stderr, Ctrl-C and the exit code over
// the daemon's socket. The client links only this package, rundir and the standard library, so
// it starts in a few milliseconds where the full exo binary spends tens initialising the TUI's
// and the model SDKs' packages.
//
// The client upgrades an HTTP request on the daemon's socket (POST /v1/cli, Upgrade: exo-cli/1)
// and both sides then speak frames: one kind byte, a big-endian uint32 length, the payload.
package relay

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Frame kinds. The client sends Invocation first, then Stdin, StdinEOF and Interrupt frames;
// the daemon answers with Stdout, Stderr and StdinWanted frames and ends with Exit or NotServed.
const (
	// KindInvocation carries the JSON Invocation (client to daemon, first frame).
	KindInvocation byte = 'j'
	// KindStdin carries bytes of the client's stdin.
	KindStdin byte = 'i'
	// KindStdinEOF says the client's stdin ended.
	KindStdinEOF byte = 'I'
	// KindInterrupt is a Ctrl-C (or SIGTERM) the user gave the client.
	KindInterrupt byte = 's'
	// KindStdout and KindStderr carry the command's output.
	KindStdout byte = 'o'
	KindStderr byte = 'e'
	// KindStdinWanted asks the client to start relaying its stdin: sent the first time the
	// command reads it, so a command that never reads leaves the client's stdin untouched.
	KindStdinWanted byte = 'r'
	// KindExit carries the exit code in decimal; nothing follows it.
	KindExit byte = 'x'
	// KindNotServed says the daemon will not run this command line (its environment differs
	// from the client's, say): the client runs the full exo instead. Nothing follows it.
	KindNotServed byte = 'n'
)

// MaxFrame is the largest payload a frame may carry; writers split bigger writes.
const MaxFrame = 1 << 20

// WriteFrame writes one frame.
func WriteFrame(w io.Writer, kind byte, p []byte) error {
	if len(p) > MaxFrame {
		return fmt.Errorf("relay frame of %d bytes: more than %d", len(p), MaxFrame)
	}
	buf := make([]byte, 5+len(p))
	buf[0] = kind
	binary.BigEndian.PutUint32(buf[1:5], uint32(len(p)))
	copy(buf[5:], p)
	_, err := w.Write(buf)
	return err
}

// ReadFrame reads one frame. A frame longer than MaxFrame is an error: the peer is not exo.
func ReadFrame(r *bufio.Reader) (byte, []byte, error) {
	return readFrameInto(r, nil)
}

// readFrameInto reads one frame into buf when it has room (the payload is valid until the next
// call with the same buf), else into a new slice.
func readFrameInto(r *bufio.Reader, buf []byte) (byte, []byte, error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(head[1:5])
	if n > MaxFrame {
		return 0, nil, fmt.Errorf("relay frame of %d bytes: more than %d (not an exo peer?)", n, MaxFrame)
	}
	p := buf[:0]
	if cap(p) < int(n) {
		p = make([]byte, n)
	}
	p = p[:n]
	if _, err := io.ReadFull(r, p); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return head[0], p, nil
}
