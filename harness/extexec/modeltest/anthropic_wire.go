package modeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// messagesRequest is the part of a Messages request the server reads.
type messagesRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// block is one content block of a request message.
type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// blocks decodes a message's content: a string or an array of blocks.
func blocksOf(raw json.RawMessage) []block {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	_ = json.Unmarshal(raw, &bs)
	return bs
}

// promptIndex is the index of the last user message holding text (a prompt, not only tool
// results), or -1.
func (r *messagesRequest) promptIndex() int {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role != "user" {
			continue
		}
		for _, b := range blocksOf(r.Messages[i].Content) {
			if b.Type == "text" && !strings.HasPrefix(strings.TrimSpace(b.Text), "<system-reminder>") {
				return i
			}
		}
	}
	return -1
}

// lastPrompt is the text of the last user prompt.
func (r *messagesRequest) lastPrompt() string {
	i := r.promptIndex()
	if i < 0 {
		return ""
	}
	var parts []string
	for _, b := range blocksOf(r.Messages[i].Content) {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// answersSincePrompt counts assistant messages after the last prompt.
func (r *messagesRequest) answersSincePrompt() int {
	n := 0
	for _, m := range r.Messages[r.promptIndex()+1:] {
		if m.Role == "assistant" {
			n++
		}
	}
	return n
}

// sseWriter writes named server-sent events, flushing each, pausing between them.
type sseWriter struct {
	w     http.ResponseWriter
	delay time.Duration
	ctx   *http.Request
}

// event writes one event.
func (s *sseWriter) event(name string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, b)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// pause waits the turn's delay (or until the client leaves).
func (s *sseWriter) pause() {
	if s.delay <= 0 {
		return
	}
	select {
	case <-time.After(s.delay):
	case <-s.ctx.Context().Done():
	}
}

// blocks streams the turn's text and tool calls and returns the output token count.
func (s *sseWriter) blocks(t *Turn, toolPrefix string) int {
	chunk := t.Chunk
	if chunk <= 0 {
		chunk = 8
	}
	idx, out := 0, 0
	if t.Thinking != "" {
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
		for _, p := range pieces(t.Thinking, chunk) {
			s.pause()
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "thinking_delta", "thinking": p}})
		}
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "signature_delta", "signature": "c2NyaXB0ZWQ="}})
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		out += len(t.Thinking)/4 + 1
		idx++
	}
	if t.Text != "" {
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "text", "text": ""}})
		for _, p := range pieces(t.Text, chunk) {
			s.pause()
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "text_delta", "text": p}})
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		out += len(t.Text)/4 + 1
		idx++
	}
	for i, c := range t.ToolCalls {
		input := c.Input
		if input == nil {
			input = map[string]any{}
		}
		args, _ := json.Marshal(input)
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{
			"type": "tool_use", "id": fmt.Sprintf("%s_%d", toolPrefix, i+1), "name": c.Name, "input": map[string]any{}}})
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": ""}})
		for _, p := range pieces(string(args), chunk) {
			s.pause()
			s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": p}})
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		out += len(args)/4 + 1
		idx++
	}
	return out
}

// pieces splits s into byte chunks that do not cut a UTF-8 sequence.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && k > 0 && s[k]&0xC0 == 0x80 {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}
