package providertest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
)

// ChatReply is one answer of a ScriptedChat server: text, tool calls, or a hang (the server
// holds the request open until released, to simulate a crash mid-turn).
type ChatReply struct {
	Text      string
	ToolCalls []ChatToolCall
	Hang      bool
	// Reasoning is streamed first as reasoning_content (DeepSeek's field).
	Reasoning string
	// Hold streams the reasoning, text and tool calls (a call's Args may be cut short) and then
	// holds the stream open, unfinished, until the client leaves or Release: an answer cut by a
	// cancel or a kill.
	Hold bool
	// Drop streams the same and then breaks the connection: an answer cut by the network.
	Drop bool
}

// ChatToolCall is a tool call in a ChatReply.
type ChatToolCall struct{ ID, Name, Args string }

// Seen is a request the server received.
type Seen struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// ScriptedChat is a local Chat Completions endpoint that plays replies in order (the last
// repeats) as server-sent events and records every request.
type ScriptedChat struct {
	*httptest.Server
	mu      sync.Mutex
	replies []ChatReply
	seen    []Seen
	release chan struct{}
}

// NewScriptedChat starts a server playing replies; Close it when done.
func NewScriptedChat(replies ...ChatReply) *ScriptedChat {
	s := &ScriptedChat{replies: replies, release: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// BaseURL is the API base URL to configure a client with.
func (s *ScriptedChat) BaseURL() string { return s.URL + "/v1" }

// Requests returns the requests received so far.
func (s *ScriptedChat) Requests() []Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Seen(nil), s.seen...)
}

// SetReplies replaces the replies still to play (from the next request on).
func (s *ScriptedChat) SetReplies(replies ...ChatReply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(make([]ChatReply, len(s.seen)), replies...)
}

// Release lets hanging requests end.
func (s *ScriptedChat) Release() { close(s.release) }

// handle records the request and streams the next reply.
func (s *ScriptedChat) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.seen = append(s.seen, Seen{Header: r.Header.Clone(), Body: body})
	rep := s.replies[min(len(s.seen), len(s.replies))-1]
	s.mu.Unlock()
	if rep.Hang {
		select {
		case <-s.release:
		case <-r.Context().Done():
		}
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	bw := bufio.NewWriter(w)
	chunk := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "scripted-http",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(bw, "data: %s\n\n", b)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if rep.Reasoning != "" {
		chunk(map[string]any{"reasoning_content": rep.Reasoning}, nil)
	}
	if rep.Text != "" {
		chunk(map[string]any{"content": rep.Text}, nil)
	}
	for i, c := range rep.ToolCalls {
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Args}}}}, nil)
	}
	if rep.Hold || rep.Drop {
		bw.Flush()
		w.(http.Flusher).Flush()
		if rep.Drop {
			panic(http.ErrAbortHandler) // the connection breaks mid-stream
		}
		select {
		case <-s.release:
		case <-r.Context().Done():
		}
		return
	}
	finish := "stop"
	if len(rep.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	chunk(map[string]any{}, finish)
	fmt.Fprintf(bw, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"scripted-http\",\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":10,\"total_tokens\":60}}\n\n")
	fmt.Fprintf(bw, "data: [DONE]\n\n")
	bw.Flush()
}

// ReplayServer answers the n-th request with the n-th recorded stream file (the last repeats),
// whatever the API, and records the requests: for end-to-end runs against recorded streams.
type ReplayServer struct {
	*httptest.Server
	mu    sync.Mutex
	files []string
	seen  []Seen
}

// NewReplayServer starts a server replaying files in order; Close it when done.
func NewReplayServer(files ...string) *ReplayServer {
	s := &ReplayServer{files: files}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// Requests returns the requests received so far.
func (s *ReplayServer) Requests() []Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Seen(nil), s.seen...)
}

// handle records the request and writes the next recorded stream.
func (s *ReplayServer) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.seen = append(s.seen, Seen{Header: r.Header.Clone(), Body: body})
	file := s.files[min(len(s.seen), len(s.files))-1]
	s.mu.Unlock()
	data, err := os.ReadFile(file)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Write(data)
}
