//go:build !linux

package provider

import "net"

// gathering returns c: reads gather only on Linux (SO_RCVLOWAT wakes epoll readers there).
func gathering(c net.Conn) net.Conn { return c }
