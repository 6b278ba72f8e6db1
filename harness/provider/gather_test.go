package provider

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestGatherLockstepStream streams an answer whose every chunk the server sends only once the
// one before reached the caller: a reader that gathered without waking at gatherWait would wait
// for bytes that never come. The answer goes through the providers' own transport.
func TestGatherLockstepStream(t *testing.T) {
	t.Parallel()
	const n = 50
	next := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%c\"}}]}\n\n", 'a'+i%26)
			_ = rc.Flush()
			select {
			case <-next:
			case <-r.Context().Done():
				return
			}
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := NewOpenAICompatible(Config{BaseURL: srv.URL})
	req := Request{Model: "m", Messages: []Message{{Role: RoleUser, Text: "go"}}}
	for range 2 { // the second answer on the kept-alive connection
		got := 0
		resp, err := p.Stream(ctx, req, func(d Delta) {
			got++
			next <- struct{}{}
		})
		if err != nil || got != n || len(resp.Text) != n {
			t.Fatalf("err = %v, deltas = %d, text %q", err, got, resp.Text)
		}
	}
}

// TestGatherConnEcho drives a gathered connection both ways in lockstep, as requests and
// answers on a kept-alive connection go, with one-byte and larger messages, and checks that
// every byte arrives in order and the end of the stream is seen.
func TestGatherConnEcho(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		buf := make([]byte, 64<<10)
		for {
			k, err := c.Read(buf)
			if err == io.EOF {
				done <- nil
				return
			}
			if err != nil {
				done <- err
				return
			}
			// answer in single bytes, each its own segment
			for _, b := range buf[:k] {
				if _, err := c.Write([]byte{b}); err != nil {
					done <- err
					return
				}
			}
		}
	}()
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := gathering(raw)
	if err := c.SetDeadline(time.Now().Add(time.Minute)); err != nil { // a reader never woken fails, not hangs
		t.Fatal(err)
	}
	if _, ok := c.(*gatherConn); !ok && runtime.GOOS == "linux" {
		t.Fatalf("gathering(%T) = %T, want a gathering connection on Linux", raw, c)
	}
	buf := make([]byte, 32<<10)
	for i, msg := range []string{"x", "hello", strings.Repeat("abc", 1000), "y", "z"} {
		if _, err := c.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		var got []byte
		for len(got) < len(msg) {
			k, err := c.Read(buf)
			if err != nil {
				t.Fatalf("message %d: read after %d bytes: %v", i, len(got), err)
			}
			got = append(got, buf[:k]...)
		}
		if string(got) != msg {
			t.Fatalf("message %d: got %d bytes, want %d", i, len(got), len(msg))
		}
	}
	if err := raw.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if k, err := c.Read(buf); k != 0 || err != io.EOF {
		t.Fatalf("after the peer closed: %d bytes, %v; want io.EOF", k, err)
	}
	c.Close()
}
