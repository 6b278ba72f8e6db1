package provider

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// reply is one canned answer of the fake API.
type reply struct {
	status     int               // HTTP status; 0 means 200 with an SSE body
	header     map[string]string // extra response headers
	file       string            // fixture under testdata/providers (an SSE body, or an error's body)
	body       string            // literal body when file is empty
	cutAt      int               // abort the connection after this many body bytes
	firstDelay time.Duration     // pause before the first event
	stallAfter time.Duration     // after the body, hold the connection open this long
}

// seenRequest is what the fake API received.
type seenRequest struct {
	Method, Path string
	Header       http.Header
	Body         map[string]any
}

// fakeAPI is a local server that speaks a model API's wire format by
// replaying recorded SSE streams, one reply per request (the last repeats).
type fakeAPI struct {
	t       testing.TB
	srv     *httptest.Server
	mu      sync.Mutex
	replies []reply
	reqs    []seenRequest
}

// newFakeAPI starts a fake API closed at the end of the test.
func newFakeAPI(t testing.TB, replies ...reply) *fakeAPI {
	f := &fakeAPI{t: t, replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(f.handle))
	t.Cleanup(f.srv.Close)
	return f
}

// requests returns what was received so far.
func (f *fakeAPI) requests() []seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenRequest(nil), f.reqs...)
}

// handle records the request and plays the next reply.
func (f *fakeAPI) handle(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, seenRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	rep := f.replies[min(n, len(f.replies)-1)]
	f.mu.Unlock()
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	if rep.status != 0 && rep.status != http.StatusOK {
		body := rep.body
		if rep.file != "" {
			body = fixture(f.t, rep.file)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		_, _ = io.WriteString(w, body)
		return
	}
	f.stream(w, rep)
}

// stream writes the SSE body event by event, flushing each, and aborts the
// connection at rep.cutAt bytes when asked.
func (f *fakeAPI) stream(w http.ResponseWriter, rep reply) {
	body := rep.body
	if rep.file != "" {
		body = fixture(f.t, rep.file)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	fl.Flush()
	time.Sleep(rep.firstDelay)
	sent := 0
	for _, ev := range strings.SplitAfter(body, "\n\n") {
		if rep.cutAt > 0 && sent+len(ev) > rep.cutAt {
			_, _ = io.WriteString(w, ev[:rep.cutAt-sent])
			fl.Flush()
			panic(http.ErrAbortHandler) // closes the connection mid-stream
		}
		_, _ = io.WriteString(w, ev)
		fl.Flush()
		sent += len(ev)
	}
	time.Sleep(rep.stallAfter)
}

// fixture reads a recorded stream from testdata/providers.
func fixture(t testing.TB, name string) string {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "providers", name))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return string(b)
}
