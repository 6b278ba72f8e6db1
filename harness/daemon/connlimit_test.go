package daemon

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"exo/harness/api"
	"exo/harness/daemon/wire"
)

// setMax changes the bound (tests play a daemon with few descriptors).
func (t *connTracker) setMax(n int) {
	t.mu.Lock()
	t.max = n
	t.mu.Unlock()
}

// openCount is how many connections the tracker holds.
func (t *connTracker) openCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.open)
}

// rawRequest connects to sock and sends one request, without reading the answer.
func rawRequest(t *testing.T, sock, path string) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: exo\r\n"+wire.HeaderProtocol+": "+wire.ProtocolString+"\r\n\r\n")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestConnectionFloodDoesNotStarveClients is the same-uid client that opened keep-alive
// connections, sent one request on each and kept them: past the bound the longest-idle ones are
// closed, the daemon holds no more than its bound, and a real client is answered at once.
func TestConnectionFloodDoesNotStarveClients(t *testing.T) {
	f := serve(t, 0)
	const bound = 64
	f.srv.tracker.setMax(bound)
	var flood []net.Conn
	for i := 0; i < 4*bound; i++ {
		c := rawRequest(t, f.sock, "/v1/hello")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("flood connection %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		flood = append(flood, c) // kept open and idle, as the attacker does
	}
	defer func() {
		for _, c := range flood {
			c.Close()
		}
	}()
	if n := f.srv.tracker.openCount(); n > bound {
		t.Fatalf("the daemon holds %d connections, over its bound %d", n, bound)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := f.c.ListSessions(ctx); err != nil {
		t.Fatalf("a client during the flood: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a client during the flood waited %s", d)
	}
	closed := 0
	for _, c := range flood {
		c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); err == io.EOF {
			closed++
		}
	}
	if closed < 3*bound-1 {
		t.Errorf("only %d of the %d idle flood connections were closed", closed, 4*bound)
	}
}

// TestBusyDaemonRefusesWithAReason fills the bound with streams (busy connections, never idle):
// one more connection is told why it is refused instead of hanging.
func TestBusyDaemonRefusesWithAReason(t *testing.T) {
	f := serve(t, 0)
	const bound = 16
	f.srv.tracker.setMax(bound)
	f.c.Close() // the fixture's client's idle connection would be closed to make room anyway
	var streams []net.Conn
	defer func() {
		for _, c := range streams {
			c.Close()
		}
	}()
	for len(streams) < bound {
		c := rawRequest(t, f.sock, "/v1/watch")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("watch %d: %v %v", len(streams), resp, err)
		}
		if _, err := br.ReadString('\n'); err != nil { // its first frame
			t.Fatal(err)
		}
		streams = append(streams, c)
	}
	c := rawRequest(t, f.sock, "/v1/hello")
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("a connection past the bound got no answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "already serves 16 connections") {
		t.Fatalf("past the bound: %d %s", resp.StatusCode, body)
	}
}

// TestStalledWatchersAreBounded opens twenty watches that read nothing while a command prints
// 40 MB (they held 1.1 GB before: 64 MiB of queue each, and 8,192 notices): the daemon's heap
// stays bounded, the command's own client gets every byte, and the stalled watchers are cut
// once they have not read for the write timeout.
func TestStalledWatchersAreBounded(t *testing.T) {
	old := streamWriteTimeout
	streamWriteTimeout = 2 * time.Second
	defer func() { streamWriteTimeout = old }()
	f := serve(t, 0)
	ctx := context.Background()
	se, err := f.c.NewSession(ctx, api.NewSessionRequest{Name: "loud", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var stalled []net.Conn
	for range 20 {
		stalled = append(stalled, rawRequest(t, f.sock, "/v1/watch")) // and never read
	}
	defer func() {
		for _, c := range stalled {
			c.Close()
		}
	}()
	time.Sleep(200 * time.Millisecond)
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	peak := base.HeapInuse
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse)
			}
		}
	}()
	var got countWriter
	res, err := f.c.Exec(ctx, api.ExecRequest{Session: se.ID, Command: "head -c 40000000 /dev/zero | tr '\\0' x; echo"}, &got)
	close(stop)
	<-sampled
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exec: %+v %v", res, err)
	}
	if got.n < 40_000_000 {
		t.Errorf("the command's client got %d bytes of 40,000,000", got.n)
	}
	grew := int64(peak) - int64(base.HeapInuse)
	t.Logf("heap in use: %d MiB before, %d MiB at the peak (+%d MiB) with 20 stalled watchers", base.HeapInuse>>20, peak>>20, grew>>20)
	if grew > 300<<20 {
		t.Errorf("twenty stalled watchers grew the heap by %d MiB", grew>>20)
	}
	deadline := time.Now().Add(20 * time.Second)
	for f.svc.Watchers() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d stalled watchers are still served after the write timeout", f.svc.Watchers())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// countWriter counts what is written to it.
type countWriter struct{ n int }

// Write counts p.
func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }
