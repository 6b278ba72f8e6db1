package extexec

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"exo/harness/secrets"
)

// What an agent receives from its model passes through exo's redaction on its way, as what exo's
// own executor shows does: an agent keeps what it receives (Claude Code's transcript, Codex's
// rollouts), so a sealed secret a model repeats, or an upstream's error body quotes, would
// otherwise sit in its state folder and go out again in its next request. A streamed answer is
// redacted per event: the text of each delta (an Anthropic text, thinking or tool-input delta; a
// Responses *.delta; a Gemini chunk whose one part is text or a thought) through a redacting
// stream per content block, so a secret split across
// deltas is caught; what a stream holds back is sent, redacted, in a delta of its own before the
// next event that is not a delta; any other event's data is redacted whole. An event nothing was
// changed in passes byte for byte.

// redactFunc redacts a whole text.
type redactFunc func(string) string

// sseRedactor redacts a server-sent event stream fed in arbitrary chunks; what it returns is
// whole events. newStream starts a redaction of text arriving in pieces.
type sseRedactor struct {
	redact    redactFunc
	newStream func() *secrets.Stream
	line      []byte
	lines     [][]byte
	streams   map[string]*deltaStream
	order     []string
}

// deltaStream is the redaction of one content block's deltas.
type deltaStream struct {
	s *secrets.Stream
	// name, data and field are the last delta event's name, data and the path of its text: the
	// template of a delta that carries what s held back.
	name  string
	data  []byte
	field string
}

func newSSERedactor(redact redactFunc, newStream func() *secrets.Stream) *sseRedactor {
	return &sseRedactor{redact: redact, newStream: newStream, streams: map[string]*deltaStream{}}
}

// write feeds a chunk of the stream and returns the events it completed, redacted.
func (r *sseRedactor) write(p []byte) []byte {
	var out []byte
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			r.line = append(r.line, p...)
			break
		}
		r.line = append(r.line, p[:i]...)
		p = p[i+1:]
		line := bytes.TrimSuffix(r.line, []byte("\r"))
		r.line = r.line[:0]
		if len(line) == 0 {
			out = r.event(out)
			continue
		}
		r.lines = append(r.lines, append([]byte(nil), line...))
	}
	return out
}

// end returns what the stream held at its end: a last event without its blank line, a cut line
// and what the delta streams held back, all redacted.
func (r *sseRedactor) end() []byte {
	var out []byte
	if len(r.line) > 0 {
		r.lines = append(r.lines, append([]byte(nil), r.line...))
		r.line = r.line[:0]
	}
	if len(r.lines) > 0 {
		out = r.event(out)
	}
	return r.flush(out)
}

// event handles the lines of one event.
func (r *sseRedactor) event(out []byte) []byte {
	lines := r.lines
	r.lines = nil
	if len(lines) == 0 {
		return out
	}
	var name string
	var data [][]byte
	other := false
	for _, l := range lines {
		k, v, _ := bytes.Cut(l, []byte(":"))
		v = bytes.TrimPrefix(v, []byte(" "))
		switch string(k) {
		case "event":
			name = string(v)
		case "data":
			data = append(data, v)
		default:
			other = true // id:, retry:, comments: kept only with an event passed as it came
		}
	}
	raw := func() []byte {
		for _, l := range lines {
			out = append(append(out, l...), '\n')
		}
		return append(out, '\n')
	}
	if len(data) == 0 { // comments, an id or a retry alone
		var b []byte
		for _, l := range lines {
			b = append(append(b, l...), '\n')
		}
		return append(append(out, r.redact(string(b))...), '\n')
	}
	joined := bytes.Join(data, []byte("\n"))
	if key, field, ok := deltaOf(joined); ok {
		final := strings.HasPrefix(key, "g/") && gjson.GetBytes(joined, "candidates.0.finishReason").Exists()
		text := gjson.GetBytes(joined, field).Str
		ds := r.streams[key]
		if ds == nil {
			ds = &deltaStream{s: r.newStream()}
			r.streams[key] = ds
			r.order = append(r.order, key)
		}
		ds.name, ds.data, ds.field = name, joined, field
		got := ds.s.Next([]byte(text))
		if final { // a Gemini chunk that ends the answer: nothing may come after it
			got = append(got, ds.s.Flush()...)
		}
		switch {
		case string(got) == text && !other:
			return raw()
		case len(got) == 0:
			return out // all held back: sent with the next piece or before the next event
		}
		return writeEvent(out, name, withField(joined, field, string(got)))
	}
	if gjson.GetBytes(joined, "type").Str != "ping" {
		out = r.flush(out)
	}
	red := r.redact(string(joined))
	if red == string(joined) && !other {
		return raw()
	}
	return writeEvent(out, name, []byte(red))
}

// flush sends what the delta streams hold back, each as a delta of its own.
func (r *sseRedactor) flush(out []byte) []byte {
	for _, key := range r.order {
		ds := r.streams[key]
		if ds.s.Pending() == 0 {
			continue
		}
		if rest := ds.s.Flush(); len(rest) > 0 {
			out = writeEvent(out, ds.name, withField(ds.data, ds.field, string(rest)))
		}
	}
	return out
}

// deltaOf says whether an event's data is a delta whose text streams (and which block it belongs
// to, and the path of its text).
func deltaOf(data []byte) (key, field string, ok bool) {
	typ := gjson.GetBytes(data, "type").Str
	if typ == "content_block_delta" { // Anthropic Messages
		var f string
		switch gjson.GetBytes(data, "delta.type").Str {
		case "text_delta":
			f = "delta.text"
		case "thinking_delta":
			f = "delta.thinking"
		case "input_json_delta":
			f = "delta.partial_json"
		default:
			return "", "", false
		}
		if gjson.GetBytes(data, f).Type != gjson.String {
			return "", "", false
		}
		return "a/" + gjson.GetBytes(data, "index").Raw, f, true
	}
	if strings.HasSuffix(typ, ".delta") && gjson.GetBytes(data, "delta").Type == gjson.String { // OpenAI Responses
		g := gjson.GetManyBytes(data, "item_id", "output_index", "content_index", "summary_index")
		return typ + "/" + g[0].Raw + "/" + g[1].Raw + "/" + g[2].Raw + "/" + g[3].Raw, "delta", true
	}
	// Gemini (streamGenerateContent?alt=sse): every chunk is a whole GenerateContentResponse; one
	// whose one candidate has one part of text (a thought, or answer text) streams that text.
	// Chunks with function calls or several parts are redacted whole, after what the streams hold.
	if typ == "" && gjson.GetBytes(data, "candidates.#").Int() == 1 && gjson.GetBytes(data, "candidates.0.content.parts.#").Int() == 1 {
		part := gjson.GetBytes(data, "candidates.0.content.parts.0")
		if part.Get("text").Type == gjson.String && !part.Get("functionCall").Exists() {
			return "g/" + gjson.GetBytes(data, "candidates.0.index").Raw + "/" + part.Get("thought").Raw, "candidates.0.content.parts.0.text", true
		}
	}
	return "", "", false
}

// withField returns data with the string at path (keys and array indexes joined by dots) set to
// text; the rest of data keeps its bytes, but for key order and spacing. data comes back as it
// was when the path is not there.
func withField(data []byte, path, text string) []byte {
	val, _ := json.Marshal(text)
	if b, ok := setRaw(data, strings.Split(path, "."), val); ok {
		return b
	}
	return data
}

// setRaw sets the value at segs in raw (an object's key, or an array's index when the segment
// is a number) to val.
func setRaw(raw json.RawMessage, segs []string, val json.RawMessage) (json.RawMessage, bool) {
	if len(segs) == 0 {
		return val, true
	}
	if i, err := strconv.Atoi(segs[0]); err == nil {
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) != nil || i < 0 || i >= len(arr) {
			return raw, false
		}
		v, ok := setRaw(arr[i], segs[1:], val)
		if !ok {
			return raw, false
		}
		arr[i] = v
		b, err := json.Marshal(arr)
		return b, err == nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw, false
	}
	inner, found := m[segs[0]]
	if !found && len(segs) > 1 {
		return raw, false
	}
	v, ok := setRaw(inner, segs[1:], val)
	if !ok {
		return raw, false
	}
	m[segs[0]] = v
	b, err := json.Marshal(m)
	return b, err == nil
}

// writeEvent appends one event.
func writeEvent(out []byte, name string, data []byte) []byte {
	if name != "" {
		out = append(append(append(out, "event: "...), name...), '\n')
	}
	return append(append(append(out, "data: "...), data...), "\n\n"...)
}

// redactingWriter is a ResponseWriter whose server-sent events are redacted on their way to the
// agent (exo's encoders of translated answers write through it); end sends what it holds.
type redactingWriter struct {
	http.ResponseWriter
	r   *sseRedactor
	err error
}

// Write redacts p and writes the events it completes (an answer that is no event stream, such
// as an error, is redacted whole).
func (w *redactingWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if !strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		if _, err := w.ResponseWriter.Write([]byte(w.r.redact(string(p)))); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if out := w.r.write(p); len(out) > 0 {
		if _, err := w.ResponseWriter.Write(out); err != nil {
			w.err = err
			return 0, err
		}
	}
	return len(p), nil
}

// Flush passes a flush on.
func (w *redactingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// end writes what the redactor holds.
func (w *redactingWriter) end() {
	if out := w.r.end(); len(out) > 0 && w.err == nil {
		_, _ = w.ResponseWriter.Write(out)
		w.Flush()
	}
}
