// Package providertest serves model APIs' exact streaming wire formats from local HTTP servers,
// for tests and benchmarks of exo against the official SDK clients.
package providertest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
)

// ChatServer is a local OpenAI Chat Completions endpoint that streams an answer of Deltas
// pieces (each the string Piece) as server-sent events, with usage in the last chunk.
type ChatServer struct {
	*httptest.Server
	Deltas int
	Piece  string
	// Requests counts the requests served.
	Requests atomic.Int64
}

// NewChatServer starts a server streaming deltas pieces per answer; Close it when done.
func NewChatServer(deltas int, piece string) *ChatServer {
	s := &ChatServer{Deltas: deltas, Piece: piece}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// BaseURL is the API base URL to configure a client with.
func (s *ChatServer) BaseURL() string { return s.URL + "/v1" }

// handle streams one answer.
func (s *ChatServer) handle(w http.ResponseWriter, r *http.Request) {
	s.Requests.Add(1)
	// Read the whole request first, as real services do: Go's server resets a connection whose
	// request body was left unread (a long session's history), cutting the answer's end.
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	bw := bufio.NewWriterSize(w, 64<<10)
	piece, _ := json.Marshal(s.Piece)
	fmt.Fprintf(bw, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n")
	for i := 0; i < s.Deltas; i++ {
		fmt.Fprintf(bw, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s},\"finish_reason\":null}]}\n\n", piece)
	}
	fmt.Fprintf(bw, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"bench\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
	fmt.Fprintf(bw, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"bench\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\n", s.Deltas, s.Deltas+12)
	fmt.Fprintf(bw, "data: [DONE]\n\n")
	bw.Flush()
}
