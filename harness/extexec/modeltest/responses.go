package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Responses is a local OpenAI Responses endpoint (POST /v1/responses, stream true) that plays a
// Script as server-sent events in the documented order: response.created, response.in_progress,
// then per output item response.output_item.added, its deltas (response.output_text.delta inside
// a content part, or response.function_call_arguments.delta) and response.output_item.done, then
// response.completed with the usage.
type Responses struct {
	*httptest.Server
	script *Script

	mu      sync.Mutex
	seen    []Seen
	n       int
	release chan struct{}
	hanging chan struct{}
}

// NewResponses starts a server playing s; Close it when done.
func NewResponses(s *Script) *Responses {
	r := &Responses{script: s, release: make(chan struct{}), hanging: make(chan struct{}, 16)}
	r.Server = httptest.NewServer(http.HandlerFunc(r.handle))
	return r
}

// BaseURL is the API base to configure a client with (…/v1).
func (r *Responses) BaseURL() string { return r.URL + "/v1" }

// Requests returns the requests received so far.
func (r *Responses) Requests() []Seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Seen(nil), r.seen...)
}

// Calls returns the POST /v1/responses requests received so far.
func (r *Responses) Calls() []Seen {
	var out []Seen
	for _, s := range r.Requests() {
		if s.Method == http.MethodPost && s.Path == "/v1/responses" {
			out = append(out, s)
		}
	}
	return out
}

// Hanging is signalled each time a hang turn starts holding its request open.
func (r *Responses) Hanging() <-chan struct{} { return r.hanging }

// Release ends every hanging request.
func (r *Responses) Release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.release:
	default:
		close(r.release)
	}
}

// responsesRequest is the part of a Responses request the server reads.
type responsesRequest struct {
	Model string            `json:"model"`
	Input []json.RawMessage `json:"input"`
}

// inputItem is one input item.
type inputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// prompt returns the last user message's text and how many assistant answers (messages or
// function calls, grouped per answer) follow it.
func (q *responsesRequest) prompt() (string, int) {
	last, text := -1, ""
	items := make([]inputItem, len(q.Input))
	for i, raw := range q.Input {
		_ = json.Unmarshal(raw, &items[i])
		if (items[i].Type == "message" || items[i].Type == "") && items[i].Role == "user" {
			if t := contentText(items[i].Content); t != "" && !strings.HasPrefix(strings.TrimSpace(t), "<environment_context>") &&
				!strings.HasPrefix(strings.TrimSpace(t), "# AGENTS.md") {
				last, text = i, t
			}
		}
	}
	answers, inAnswer := 0, false
	for _, it := range items[last+1:] {
		isAnswer := it.Type == "function_call" || it.Type == "custom_tool_call" || it.Type == "reasoning" ||
			(it.Type == "message" || it.Type == "") && it.Role == "assistant"
		if isAnswer && !inAnswer {
			answers++
		}
		inAnswer = isAnswer
	}
	return text, answers
}

// contentText joins the text parts of message content (a string or parts).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// handle records a request and answers it.
func (r *Responses) handle(w http.ResponseWriter, req *http.Request) {
	at := time.Now()
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.seen = append(r.seen, Seen{At: at, Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Body: body})
	r.n++
	id := r.n
	r.mu.Unlock()
	if req.Method != http.MethodPost || req.URL.Path != "/v1/responses" {
		writeOpenAIError(w, http.StatusNotFound, "no such endpoint: "+req.Method+" "+req.URL.Path)
		return
	}
	var q responsesRequest
	if err := json.Unmarshal(body, &q); err != nil {
		writeOpenAIError(w, http.StatusBadRequest, "body: "+err.Error())
		return
	}
	text, n := q.prompt()
	_, p := r.script.pick(text)
	if p == nil || n >= len(p.Turns) {
		writeOpenAIError(w, http.StatusBadRequest, fmt.Sprintf("modeltest: no scripted turn for prompt %q (turn %d)", text, n+1))
		return
	}
	t := &p.Turns[n]
	if t.Status != 0 && t.Status != http.StatusOK {
		writeOpenAIError(w, t.Status, t.errorMessage())
		return
	}
	r.stream(w, req, &q, t, id, len(body))
}

// stream writes one scripted answer as server-sent events.
func (r *Responses) stream(w http.ResponseWriter, req *http.Request, q *responsesRequest, t *Turn, id, bodyLen int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	sse := &sseWriter{w: w, delay: time.Duration(t.DelayMs) * time.Millisecond, ctx: req}
	rid := fmt.Sprintf("resp_fake%06d", id)
	seq := 0
	ev := func(name string, data map[string]any) {
		data["type"], data["sequence_number"] = name, seq
		seq++
		sse.event(name, data)
	}
	resp := func(status string, output []any, usage any) map[string]any {
		return map[string]any{"id": rid, "object": "response", "created_at": time.Now().Unix(), "status": status, "model": q.Model,
			"output": output, "usage": usage}
	}
	sse.pause()
	ev("response.created", map[string]any{"response": resp("in_progress", []any{}, nil)})
	ev("response.in_progress", map[string]any{"response": resp("in_progress", []any{}, nil)})
	if t.Hang && !r.hang(req) {
		return
	}
	chunk := max(t.Chunk, 1)
	if t.Chunk <= 0 {
		chunk = 8
	}
	var output []any
	idx, out := 0, 0
	if t.Thinking != "" { // a reasoning item with a summary, as reasoning models stream it
		rsid := fmt.Sprintf("rs_fake%06d", id)
		ev("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{"id": rsid, "type": "reasoning", "summary": []any{}}})
		ev("response.reasoning_summary_part.added", map[string]any{"item_id": rsid, "output_index": idx, "summary_index": 0, "part": map[string]any{"type": "summary_text", "text": ""}})
		for _, piece := range pieces(t.Thinking, chunk) {
			sse.pause()
			ev("response.reasoning_summary_text.delta", map[string]any{"item_id": rsid, "output_index": idx, "summary_index": 0, "delta": piece})
		}
		part := map[string]any{"type": "summary_text", "text": t.Thinking}
		ev("response.reasoning_summary_text.done", map[string]any{"item_id": rsid, "output_index": idx, "summary_index": 0, "text": t.Thinking})
		ev("response.reasoning_summary_part.done", map[string]any{"item_id": rsid, "output_index": idx, "summary_index": 0, "part": part})
		item := map[string]any{"id": rsid, "type": "reasoning", "summary": []any{part}}
		ev("response.output_item.done", map[string]any{"output_index": idx, "item": item})
		output = append(output, item)
		out += len(t.Thinking)/4 + 1
		idx++
	}
	if t.Text != "" {
		mid := fmt.Sprintf("msg_fake%06d", id)
		ev("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{"id": mid, "type": "message", "status": "in_progress", "content": []any{}, "role": "assistant"}})
		ev("response.content_part.added", map[string]any{"item_id": mid, "output_index": idx, "content_index": 0, "part": map[string]any{"type": "output_text", "annotations": []any{}, "text": ""}})
		for _, piece := range pieces(t.Text, chunk) {
			sse.pause()
			ev("response.output_text.delta", map[string]any{"item_id": mid, "output_index": idx, "content_index": 0, "delta": piece})
		}
		part := map[string]any{"type": "output_text", "annotations": []any{}, "text": t.Text}
		ev("response.output_text.done", map[string]any{"item_id": mid, "output_index": idx, "content_index": 0, "text": t.Text})
		ev("response.content_part.done", map[string]any{"item_id": mid, "output_index": idx, "content_index": 0, "part": part})
		item := map[string]any{"id": mid, "type": "message", "status": "completed", "content": []any{part}, "role": "assistant"}
		ev("response.output_item.done", map[string]any{"output_index": idx, "item": item})
		output = append(output, item)
		out += len(t.Text)/4 + 1
		idx++
	}
	for _, it := range t.Items {
		ev("response.output_item.added", map[string]any{"output_index": idx, "item": it})
		ev("response.output_item.done", map[string]any{"output_index": idx, "item": it})
		output = append(output, it)
		idx++
	}
	for i, c := range t.ToolCalls {
		input := c.Input
		if input == nil {
			input = map[string]any{}
		}
		args, _ := json.Marshal(input)
		fid, cid := fmt.Sprintf("fc_fake%06d_%d", id, i+1), fmt.Sprintf("call_fake%06d_%d", id, i+1)
		ev("response.output_item.added", map[string]any{"output_index": idx, "item": map[string]any{"id": fid, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": cid, "name": c.Name}})
		for _, piece := range pieces(string(args), chunk) {
			sse.pause()
			ev("response.function_call_arguments.delta", map[string]any{"item_id": fid, "output_index": idx, "delta": piece})
		}
		ev("response.function_call_arguments.done", map[string]any{"item_id": fid, "output_index": idx, "arguments": string(args)})
		item := map[string]any{"id": fid, "type": "function_call", "status": "completed", "arguments": string(args), "call_id": cid, "name": c.Name}
		ev("response.output_item.done", map[string]any{"output_index": idx, "item": item})
		output = append(output, item)
		out += len(args)/4 + 1
		idx++
	}
	in := t.InputTokens
	if in == 0 {
		in = bodyLen / 4
	}
	if t.OutputTokens > 0 {
		out = t.OutputTokens
	}
	ev("response.completed", map[string]any{"response": resp("completed", output, map[string]any{"input_tokens": in,
		"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens": out,
		"output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": in + out})})
}

// hang holds a request until release (true) or the client leaves (false).
func (r *Responses) hang(req *http.Request) bool {
	select {
	case r.hanging <- struct{}{}:
	default:
	}
	select {
	case <-r.release:
		return true
	case <-req.Context().Done():
		return false
	}
}

// writeOpenAIError answers with OpenAI's error body.
func writeOpenAIError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": nil}})
	_, _ = w.Write(b)
}
