//go:build linux

package provider

import (
	"net"
	"testing"
)

// TestGatherProbe: on this kernel lowering a socket's low-water mark wakes an edge-triggered
// waiter (the probe passes), so the providers' connections gather; a connection on a kernel
// where the probe fails is used as it is (the probe's error says why).
func TestGatherProbe(t *testing.T) {
	if err := probeGather(); err != nil {
		t.Fatalf("the gathering probe failed on this kernel: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		if c, err := l.Accept(); err == nil {
			defer c.Close()
			c.Read(make([]byte, 1))
		}
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, ok := gathering(c).(*gatherConn); !ok {
		t.Fatal("a TCP connection was not made to gather where the probe passed")
	}
}
