//go:build !linux

package provider

import "net"

// gatherConn stands for the Linux type in the tests that look for it.
type gatherConn struct{ net.Conn }
