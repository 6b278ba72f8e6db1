package providertest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
)

// Reply is one recorded or written answer of a ReplyServer.
type Reply struct {
	// Status is the HTTP status (0: 200).
	Status int
	// Header holds the answer's headers; an event stream's Content-Type is
	// set when none is given.
	Header map[string]string
	// Body is the answer's body, byte for byte.
	Body string
	// Chunk, when positive, writes the body in pieces of this many bytes,
	// flushing each, so that events arrive split anywhere.
	Chunk int
}

// FileReply is a 200 event stream read from a file.
func FileReply(path string) (Reply, error) {
	b, err := os.ReadFile(path)
	return Reply{Body: string(b)}, err
}

// ReplyServer answers the n-th request with the n-th reply (the last
// repeats) and records every request: a local server speaking a model API's
// exact wire format, for end-to-end runs against recorded answers.
type ReplyServer struct {
	*httptest.Server
	mu      sync.Mutex
	replies []Reply
	seen    []Seen
	check   func(body []byte) *Reply
	// refusals counts the requests the check answered.
	refusals int
}

// NewReplyServer starts a server playing replies in order; Close it when done.
func NewReplyServer(replies ...Reply) *ReplyServer {
	s := &ReplyServer{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// NewCheckedReplyServer is NewReplyServer with a check of each request body, as the live
// service validates it: a non-nil reply from check answers the request instead of the next
// recorded one (which stays next).
func NewCheckedReplyServer(check func(body []byte) *Reply, replies ...Reply) *ReplyServer {
	s := &ReplyServer{replies: replies, check: check}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// Requests returns the requests received so far.
func (s *ReplyServer) Requests() []Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Seen(nil), s.seen...)
}

// handle records the request and writes the next reply.
func (s *ReplyServer) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.seen = append(s.seen, Seen{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	var rep Reply
	if bad := s.refused(body); bad != nil {
		rep, s.refusals = *bad, s.refusals+1
	} else {
		rep = s.replies[min(len(s.seen)-s.refusals, len(s.replies))-1]
	}
	s.mu.Unlock()
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	w.WriteHeader(max(rep.Status, http.StatusOK))
	writeChunks(w, rep.Body, rep.Chunk)
}

// writeChunks writes body in pieces of n bytes (all at once when n ≤ 0),
// flushing after each.
func writeChunks(w http.ResponseWriter, body string, n int) {
	fl, _ := w.(http.Flusher)
	if n <= 0 {
		n = len(body)
	}
	for i := 0; i < len(body); i += n {
		_, _ = io.WriteString(w, body[i:min(i+n, len(body))])
		if fl != nil {
			fl.Flush()
		}
	}
}

// refused runs the check, if any, on a request body.
func (s *ReplyServer) refused(body []byte) *Reply {
	if s.check == nil {
		return nil
	}
	return s.check(body)
}
