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

// Gemini is a local Gemini API endpoint (POST /v1beta/models/MODEL:streamGenerateContent) that
// plays a Script as server-sent events in the live service's shape: a chunk per piece of
// thought (parts marked thought), of text and per function call, then a chunk with the finish
// reason and usageMetadata. generateContent (a client's side questions) is answered with a
// fixed JSON answer and countTokens with a count; neither plays the script.
type Gemini struct {
	*httptest.Server
	script *Script

	mu      sync.Mutex
	seen    []Seen
	release chan struct{}
	hanging chan struct{}
}

// NewGemini starts a server playing s; Close it when done.
func NewGemini(s *Script) *Gemini {
	g := &Gemini{script: s, release: make(chan struct{}), hanging: make(chan struct{}, 16)}
	g.Server = httptest.NewServer(http.HandlerFunc(g.handle))
	return g
}

// Requests returns the requests received so far.
func (g *Gemini) Requests() []Seen {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Seen(nil), g.seen...)
}

// Hanging is signalled each time a hang turn starts holding its request open.
func (g *Gemini) Hanging() <-chan struct{} { return g.hanging }

// geminiRequest is the part of a generateContent body the server reads.
type geminiRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text             string          `json:"text"`
			Thought          bool            `json:"thought"`
			FunctionResponse json.RawMessage `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
}

// prompt is the text of the last user content holding text (not only function responses), and
// how many model contents follow it.
func (q *geminiRequest) prompt() (string, int) {
	for i := len(q.Contents) - 1; i >= 0; i-- {
		c := q.Contents[i]
		if c.Role != "user" {
			continue
		}
		var text strings.Builder
		for _, p := range c.Parts {
			if len(p.FunctionResponse) == 0 && !p.Thought {
				text.WriteString(p.Text)
			}
		}
		if text.Len() == 0 {
			continue
		}
		n := 0
		for _, d := range q.Contents[i+1:] {
			if d.Role == "model" {
				n++
			}
		}
		return text.String(), n
	}
	return "", 0
}

func (g *Gemini) handle(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, _ := io.ReadAll(r.Body)
	g.mu.Lock()
	g.seen = append(g.seen, Seen{At: at, Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: body})
	g.mu.Unlock()
	switch {
	case strings.HasSuffix(r.URL.Path, ":countTokens"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"totalTokens": 42}`)
		return
	case strings.HasSuffix(r.URL.Path, ":generateContent"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"candidates": [{"content": {"parts": [{"text": "{\"next_speaker\": \"user\", \"reasoning\": \"done\"}"}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 10,"candidatesTokenCount": 5,"totalTokenCount": 15}}`)
		return
	case !strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
		writeGeminiError(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
		return
	}
	var q geminiRequest
	if err := json.Unmarshal(body, &q); err != nil {
		writeGeminiError(w, http.StatusBadRequest, "body: "+err.Error())
		return
	}
	last, n := q.prompt()
	_, p := g.script.pick(last)
	if p == nil || n >= len(p.Turns) {
		writeGeminiError(w, http.StatusBadRequest, fmt.Sprintf("modeltest: no scripted turn for prompt %q (turn %d)", last, n+1))
		return
	}
	t := &p.Turns[n]
	if t.Status != 0 && t.Status != http.StatusOK {
		writeGeminiError(w, t.Status, t.errorMessage())
		return
	}
	g.stream(w, r, t, len(body))
}

// stream writes one scripted answer as server-sent events.
func (g *Gemini) stream(w http.ResponseWriter, r *http.Request, t *Turn, bodyLen int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	sse := &sseWriter{w: w, delay: time.Duration(t.DelayMs) * time.Millisecond, ctx: r}
	in := t.InputTokens
	if in == 0 {
		in = bodyLen / 4
	}
	chunk := func(parts []map[string]any, finish string, out int) {
		c := map[string]any{"content": map[string]any{"parts": parts, "role": "model"}, "index": 0}
		if finish != "" {
			c["finishReason"] = finish
		}
		b, _ := json.Marshal(map[string]any{"candidates": []any{c}, "modelVersion": "gemini-2.5-flash", "responseId": "modeltest",
			"usageMetadata": map[string]any{"promptTokenCount": in, "candidatesTokenCount": out, "totalTokenCount": in + out}})
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	size := t.Chunk
	if size <= 0 {
		size = 8
	}
	sse.pause()
	if t.Hang {
		chunk([]map[string]any{{"text": ""}}, "", 0)
		select {
		case g.hanging <- struct{}{}:
		default:
		}
		select {
		case <-g.release:
		case <-r.Context().Done():
			return
		}
	}
	out := 0
	for _, piece := range pieces(t.Thinking, size) {
		chunk([]map[string]any{{"text": piece, "thought": true}}, "", out)
		out += (len(piece) + 3) / 4
		sse.pause()
	}
	for _, piece := range pieces(t.Text, size) {
		chunk([]map[string]any{{"text": piece}}, "", out)
		out += (len(piece) + 3) / 4
		sse.pause()
	}
	var calls []map[string]any
	for _, c := range t.ToolCalls {
		calls = append(calls, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": c.Input}})
	}
	if t.OutputTokens > 0 {
		out = t.OutputTokens
	}
	if out == 0 {
		out = 1
	}
	if len(calls) == 0 {
		calls = []map[string]any{{"text": ""}}
	}
	chunk(calls, "STOP", out)
}

// writeGeminiError answers with the API's error body.
func writeGeminiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": msg, "status": http.StatusText(status)}})
	w.Write(b)
}
