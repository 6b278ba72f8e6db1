package provider

import (
	"context"
	"net"
	"net/http"
	"time"
)

// gatherWait is the longest a streamed answer's bytes wait in the kernel before the reader is
// woken for them: a stream of small chunks (a one-character delta is one TCP segment of ~150
// bytes) is read in batches, one wake-up of the reading goroutine per gatherWait or per full
// read buffer instead of one per chunk. The stream writer to the clients sends at most every
// 8 ms, so nobody sees the wait.
const gatherWait = 2 * time.Millisecond

// streamReadBuffer is the size of the HTTP/1 transport's read buffer: a gathered batch of
// chunks is read in one system call.
const streamReadBuffer = 32 << 10

// streamTransport is the transport of providers configured without their own HTTP client:
// http.DefaultTransport's settings (proxy from the environment, HTTP/2, time-outs), with
// connections whose reads gather ([gatherConn]) and a larger read buffer.
var streamTransport http.RoundTripper = newStreamTransport()

// newStreamTransport clones http.DefaultTransport with a gathering dialer.
func newStreamTransport() http.RoundTripper {
	dt, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return http.DefaultTransport
	}
	t := dt.Clone()
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return gathering(c), nil
	}
	t.ReadBufferSize = streamReadBuffer
	return t
}
