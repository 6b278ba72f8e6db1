package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Seen is one request a server received, byte for byte.
type Seen struct {
	// At is when the request arrived.
	At     time.Time
	Method string
	Path   string
	// Query is the request's query (the Gemini API may carry its key there).
	Query  url.Values
	Header http.Header
	Body   []byte
}

// Anthropic is a local Anthropic Messages endpoint (POST /v1/messages, stream true) that plays a
// Script as server-sent events in the documented order: message_start, then per block
// content_block_start, content_block_delta (text_delta or input_json_delta) and
// content_block_stop, then message_delta with the stop reason and usage, then message_stop.
type Anthropic struct {
	*httptest.Server
	script *Script

	mu      sync.Mutex
	seen    []Seen
	msgs    int
	release chan struct{}
	hanging chan struct{}
}

// NewAnthropic starts a server playing s; Close it when done.
func NewAnthropic(s *Script) *Anthropic {
	a := &Anthropic{script: s, release: make(chan struct{}), hanging: make(chan struct{}, 16)}
	a.Server = httptest.NewServer(http.HandlerFunc(a.handle))
	return a
}

// Requests returns the requests received so far (every method and path).
func (a *Anthropic) Requests() []Seen {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Seen(nil), a.seen...)
}

// Messages returns the POST /v1/messages requests received so far.
func (a *Anthropic) Messages() []Seen {
	var out []Seen
	for _, r := range a.Requests() {
		if r.Method == http.MethodPost && r.Path == "/v1/messages" {
			out = append(out, r)
		}
	}
	return out
}

// Hanging is signalled each time a hang turn starts holding its request open.
func (a *Anthropic) Hanging() <-chan struct{} { return a.hanging }

// Release ends every hanging request (they finish their turn normally).
func (a *Anthropic) Release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	select {
	case <-a.release:
	default:
		close(a.release)
	}
}

// handle records a request and answers it.
func (a *Anthropic) handle(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, _ := io.ReadAll(r.Body)
	a.mu.Lock()
	a.seen = append(a.seen, Seen{At: at, Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	a.msgs++
	id := a.msgs
	a.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		writeError(w, http.StatusNotFound, "not_found_error", "no such endpoint: "+r.Method+" "+r.URL.Path)
		return
	}
	var req messagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "body: "+err.Error())
		return
	}
	_, turnN, t := a.turnFor(&req)
	if t == nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error",
			fmt.Sprintf("modeltest: no scripted turn for prompt %q (turn %d)", req.lastPrompt(), turnN+1))
		return
	}
	if t.Status != 0 && t.Status != http.StatusOK {
		writeError(w, t.Status, errorType(t.Status), t.errorMessage())
		return
	}
	a.stream(w, r, &req, t, fmt.Sprintf("msg_fake%06d", id), fmt.Sprintf("toolu_fake%06d", id), len(body))
}

// turnFor picks the scripted turn a request calls for.
func (a *Anthropic) turnFor(req *messagesRequest) (int, int, *Turn) {
	last := req.lastPrompt()
	pi, p := a.script.pick(last)
	n := req.answersSincePrompt()
	if p == nil || n >= len(p.Turns) {
		return pi, n, nil
	}
	return pi, n, &p.Turns[n]
}

// stream writes one scripted answer as server-sent events.
func (a *Anthropic) stream(w http.ResponseWriter, r *http.Request, req *messagesRequest, t *Turn, msgID, toolPrefix string, bodyLen int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("request-id", "req_"+strings.TrimPrefix(msgID, "msg_"))
	w.WriteHeader(http.StatusOK)
	sse := &sseWriter{w: w, delay: time.Duration(t.DelayMs) * time.Millisecond, ctx: r}
	in := t.InputTokens
	if in == 0 {
		in = bodyLen / 4
	}
	sse.pause()
	sse.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "content": []any{}, "model": req.Model,
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": in, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1}}})
	sse.event("ping", map[string]any{"type": "ping"})
	if t.Hang && !a.hang(r) {
		return
	}
	out := sse.blocks(t, toolPrefix)
	if t.OutputTokens > 0 {
		out = t.OutputTokens
	}
	stop := "end_turn"
	if len(t.ToolCalls) > 0 {
		stop = "tool_use"
	}
	sse.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"input_tokens": in, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": out}})
	sse.event("message_stop", map[string]any{"type": "message_stop"})
}

// hang holds a request until release (true) or the client leaves (false).
func (a *Anthropic) hang(r *http.Request) bool {
	select {
	case a.hanging <- struct{}{}:
	default:
	}
	select {
	case <-a.release:
		return true
	case <-r.Context().Done():
		return false
	}
}

// writeError answers with the API's error body.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
	_, _ = w.Write(b)
}

// errorType maps a status to the API's error type.
func errorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	return "api_error"
}
