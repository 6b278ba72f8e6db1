package provider

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// A streamed answer is mostly chunks of one shape: an id, a model, one choice whose delta holds a
// little text, nulls for the rest. Decoding each through encoding/json's reflection was most of
// the CPU a long answer cost, so decodeChatChunk reads that shape itself, looking only at the
// fields exo uses (text, reasoning, tool call fragments, the finish reason) and checking the rest
// is valid JSON as it skips it. Anything else — a usage or error object, a key that is not ASCII
// or differs from a known one only in case, a repeated key, a value of another type, a number
// that is not a small integer, invalid JSON — goes to encoding/json, on a zeroed chunk, so the
// result is always exactly what json.Unmarshal gives (FuzzChatChunkDecoder holds the two to
// that). Strings with escapes are unquoted by encoding/json itself, one string at a time.

// maxSkipDepth bounds the nesting of a skipped value the fast path follows; deeper goes to
// encoding/json (which has its own, larger limit).
const maxSkipDepth = 64

// decodeChatChunk decodes one chunk's JSON into c (a zero chunk) as json.Unmarshal does.
func decodeChatChunk(data []byte, c *chatChunk) *Error {
	return decodeChatChunkInto(data, c, nil)
}

// decodeChatChunkInto is decodeChatChunk with room for the choices: c.Choices may share
// room's array, so the chunk is read before room is used again.
func decodeChatChunkInto(data []byte, c *chatChunk, room []chatChoice) *Error {
	return decodeChatChunkAt(data, c, room, nil)
}

// decodeChatChunkAt is decodeChatChunkInto that also records the shape of the chunk for a
// template in shape, when not nil (shape.ok false when it cannot make one).
func decodeChatChunkAt(data []byte, c *chatChunk, room []chatChoice, shape *chunkShape) *Error {
	if shape != nil {
		*shape = chunkShape{}
	}
	d := chatDecoder{b: data, room: room[:0], shape: shape}
	if d.chunk(c) {
		if shape != nil {
			shape.ok = shape.ok && shape.contents == 1 && !shape.overflow && len(c.Choices) == 1
		}
		return nil
	}
	if shape != nil {
		shape.ok = false
	}
	*c = chatChunk{}
	return decodeEvent(data, c)
}

// maxHoles bounds the skipped strings a template lets vary.
const maxHoles = 16

// span is where a string is in a chunk: data[start] is its opening quote, data[end-1] its
// closing one.
type span struct{ start, end int }

// chunkShape is what a decode saw of a chunk's strings: where its content string is (ok when
// it was plain, without escapes) and where the string values it skipped are.
type chunkShape struct {
	content  span
	ok       bool
	contents int // content keys read
	skipped  [maxHoles]span
	holes    int
	overflow bool // more skipped strings than maxHoles
}

// chatTemplate decodes the chunks of a stream that differ from the one before only in their
// text and in strings exo does not read. Servers send every chunk of an answer with the same
// keys, model and nulls around the text; some add a value that changes every chunk (OpenAI's
// random "obfuscation" padding, an id). A chunk whose bytes are the template's chunk's bytes
// with other strings in those places can only decode to that chunk with the new text: the
// bytes around are parsed alike, a string ends at its own closing quote, and the strings that
// differ are ones the decoder skips, checking only that they are valid. So the template
// compares bytes, reads the text and checks the other strings; anything else is decoded in
// full, and a chunk that qualifies becomes the next template.
type chatTemplate struct {
	// lits are the bytes between the holes: lits[0] up to and including the first hole's
	// opening quote, then from each hole's closing quote to the next one's opening quote, the
	// last to the end of the chunk.
	lits    [][]byte
	content int // which hole is the text
	chunk   chatChunk
	choice  chatChoice
	ok      bool
	buf     []byte // backs lits
	shape   chunkShape
}

// decode decodes data into c as decodeChatChunkInto does, through the template when data
// matches it.
func (t *chatTemplate) decode(data []byte, c *chatChunk, room []chatChoice) *Error {
	if text, ok := t.match(data); ok {
		*c = t.chunk
		ch := t.choice
		ch.Delta.Content = string(text)
		if cap(room) == 0 {
			room = make([]chatChoice, 0, 1)
		}
		c.Choices = append(room[:0], ch)
		return nil
	}
	err := decodeChatChunkAt(data, c, room, &t.shape)
	t.ok = false
	if err != nil || !t.shape.ok || !templatable(c) {
		return err
	}
	t.make(data, &t.shape)
	t.chunk = chatChunk{Model: c.Model}
	t.choice = c.Choices[0]
	t.choice.Delta.Content = ""
	t.ok = true
	return nil
}

// make cuts data into the template's literal pieces around the holes of shape.
func (t *chatTemplate) make(data []byte, shape *chunkShape) {
	holes := make([]span, 0, shape.holes+1)
	holes = append(holes, shape.skipped[:shape.holes]...)
	t.content = -1
	for i, h := range holes { // skipped strings are recorded in order; the text goes among them
		if h.start > shape.content.start {
			holes = append(holes[:i], append([]span{shape.content}, holes[i:]...)...)
			t.content = i
			break
		}
	}
	if t.content < 0 {
		t.content = len(holes)
		holes = append(holes, shape.content)
	}
	t.buf = append(t.buf[:0], data...)
	t.lits = t.lits[:0]
	at := 0
	for _, h := range holes {
		t.lits = append(t.lits, t.buf[at:h.start+1])
		at = h.end - 1
	}
	t.lits = append(t.lits, t.buf[at:])
}

// match returns the text of data when data is the template's chunk with other strings in its
// holes, the text a plain string.
func (t *chatTemplate) match(data []byte) ([]byte, bool) {
	if !t.ok {
		return nil, false
	}
	var text []byte
	i := 0
	last := len(t.lits) - 1
	for k, lit := range t.lits {
		if !bytes.HasPrefix(data[i:], lit) {
			return nil, false
		}
		i += len(lit)
		if k == last {
			break
		}
		d := chatDecoder{b: data, i: i - 1}
		if k == t.content {
			s, ok := d.plainString() // no quote, backslash or control character; UTF-8
			if !ok {
				return nil, false
			}
			text = s
		} else if !d.skipString() {
			return nil, false
		}
		i = d.i - 1 // the next piece starts with the closing quote
	}
	return text, i == len(data)
}

// templatable reports whether c holds nothing but plain values a template may copy: one
// choice with text and no reasoning, tool calls, usage or error.
func templatable(c *chatChunk) bool {
	if len(c.Choices) != 1 || c.Usage != nil || len(c.Error) > 0 {
		return false
	}
	d := &c.Choices[0].Delta
	return d.ReasoningContent == nil && d.Reasoning == nil && d.ReasoningDetails == nil && d.ToolCalls == nil
}

// plainText reports whether s can be the inside of a JSON string that decodes to itself: valid
// UTF-8 with no quote, backslash or control character.
func plainText(s []byte) bool {
	for _, c := range s {
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return utf8.Valid(s)
}

// chatDecoder reads one chunk; each method reports false when the input is not of the shape
// it decodes (the caller then falls back), never an error of its own.
type chatDecoder struct {
	b []byte
	i int
	// room is where choices are decoded when it has capacity.
	room []chatChoice
	// shape, when not nil, records where the chunk's strings are, for a template.
	shape *chunkShape
}

// ws skips JSON whitespace.
func (d *chatDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the next byte after whitespace, 0 at the end.
func (d *chatDecoder) peek() byte {
	d.ws()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// eat consumes c after whitespace.
func (d *chatDecoder) eat(c byte) bool {
	if d.peek() != c {
		return false
	}
	d.i++
	return true
}

// null consumes a null literal when one is next.
func (d *chatDecoder) null() bool {
	if d.peek() == 'n' && bytes.HasPrefix(d.b[d.i:], []byte("null")) {
		d.i += 4
		return true
	}
	return false
}

// chunk decodes the top-level object.
func (d *chatDecoder) chunk(c *chatChunk) bool {
	var seen [3]bool // model, choices, usage
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "model":
			return once(&seen[0]) && d.optString(&c.Model)
		case "choices":
			return once(&seen[1]) && d.choices(&c.Choices)
		case "usage":
			return once(&seen[2]) && d.null() // a usage object: rare, left to encoding/json
		case "error":
			return false // its raw bytes are kept: left to encoding/json
		}
		return !folds(key, "model", "choices", "usage", "error") && d.skip(0)
	})
	d.ws()
	return ok && d.i == len(d.b)
}

// ascii reports whether key is all ASCII: encoding/json folds some other letters into ASCII
// ones when it matches keys to fields ("ſ" to "S"), so such a key is left to it.
func ascii(key []byte) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// once marks a key seen, false when it was already (encoding/json merges repeated keys).
func once(seen *bool) bool {
	if *seen {
		return false
	}
	*seen = true
	return true
}

// folds reports whether key matches one of names only when case is ignored (encoding/json would
// then decode it into that field).
func folds(key []byte, names ...string) bool {
	for _, n := range names {
		if len(key) == len(n) && bytes.EqualFold(key, []byte(n)) { // keys here are ASCII: equal lengths
			return true
		}
	}
	return false
}

// choices decodes the choices array (or null).
func (d *chatDecoder) choices(out *[]chatChoice) bool {
	if d.null() {
		*out = nil
		return true
	}
	list := d.room
	if cap(list) == 0 {
		list = make([]chatChoice, 0, 1)
	}
	ok := d.array(func() bool {
		list = append(list, chatChoice{})
		return d.choice(&list[len(list)-1])
	})
	*out = list
	return ok
}

// choice decodes one choice object.
func (d *chatDecoder) choice(ch *chatChoice) bool {
	var seen [3]bool // index, finish_reason, delta
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "index":
			return once(&seen[0]) && d.optInt(&ch.Index)
		case "finish_reason":
			return once(&seen[1]) && d.optString(&ch.FinishReason)
		case "delta":
			return once(&seen[2]) && (d.null() || d.delta(&ch.Delta))
		}
		return !folds(key, "index", "finish_reason", "delta") && d.skip(0)
	})
}

// delta decodes a delta object.
func (d *chatDecoder) delta(dl *chatDelta) bool {
	var seen [6]bool // content, refusal, reasoning_content, reasoning, reasoning_details, tool_calls
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "content":
			d.peek()
			start := d.i
			if !once(&seen[0]) || !d.optString(&dl.Content) {
				return false
			}
			if d.shape != nil {
				d.shape.contents++
				d.shape.content = span{start: start, end: d.i}
				d.shape.ok = d.i-start >= 2 && d.b[start] == '"' && plainText(d.b[start+1:d.i-1])
			}
			return true
		case "refusal":
			return once(&seen[1]) && d.optString(&dl.Refusal)
		case "reasoning_content":
			return once(&seen[2]) && d.stringPtr(&dl.ReasoningContent)
		case "reasoning":
			return once(&seen[3]) && d.stringPtr(&dl.Reasoning)
		case "reasoning_details":
			return once(&seen[4]) && d.details(&dl.ReasoningDetails)
		case "tool_calls":
			return once(&seen[5]) && d.toolCalls(&dl.ToolCalls)
		}
		return !folds(key, "content", "refusal", "reasoning_content", "reasoning", "reasoning_details", "tool_calls") && d.skip(0)
	})
}

// stringPtr decodes a string into a new pointer; null leaves it nil.
func (d *chatDecoder) stringPtr(out **string) bool {
	if d.null() {
		*out = nil
		return true
	}
	var s string
	if !d.optString(&s) {
		return false
	}
	*out = &s
	return true
}

// details decodes reasoning_details: an array of entries, or null.
func (d *chatDecoder) details(out **[]chatReasoning) bool {
	if d.null() {
		*out = nil
		return true
	}
	list := []chatReasoning{}
	ok := d.array(func() bool {
		list = append(list, chatReasoning{})
		r := &list[len(list)-1]
		var seen [8]bool
		return d.object(func(key []byte) bool {
			switch string(key) {
			case "type":
				return once(&seen[0]) && d.optString(&r.Type)
			case "text":
				return once(&seen[1]) && d.optString(&r.Text)
			case "summary":
				return once(&seen[2]) && d.optString(&r.Summary)
			case "data":
				return once(&seen[3]) && d.optString(&r.Data)
			case "signature":
				return once(&seen[4]) && d.optString(&r.Signature)
			case "id":
				return once(&seen[5]) && d.optString(&r.ID)
			case "format":
				return once(&seen[6]) && d.optString(&r.Format)
			case "index":
				var n int64
				if !once(&seen[7]) || !d.optInt(&n) || int64(int(n)) != n {
					return false
				}
				r.Index = int(n) // null leaves n, and the field, 0
				return true
			}
			return !folds(key, "type", "text", "summary", "data", "signature", "id", "format", "index") && d.skip(0)
		})
	})
	*out = &list
	return ok
}

// toolCalls decodes tool call fragments: an array, or null.
func (d *chatDecoder) toolCalls(out *[]chatToolCall) bool {
	if d.null() {
		*out = nil
		return true
	}
	list := []chatToolCall{}
	ok := d.array(func() bool {
		list = append(list, chatToolCall{})
		tc := &list[len(list)-1]
		var seen [3]bool
		return d.object(func(key []byte) bool {
			switch string(key) {
			case "index":
				return once(&seen[0]) && d.optInt(&tc.Index)
			case "id":
				return once(&seen[1]) && d.optString(&tc.ID)
			case "function":
				if !once(&seen[2]) {
					return false
				}
				if d.null() {
					return true
				}
				var fs [2]bool
				return d.object(func(key []byte) bool {
					switch string(key) {
					case "name":
						return once(&fs[0]) && d.optString(&tc.Function.Name)
					case "arguments":
						return once(&fs[1]) && d.optString(&tc.Function.Arguments)
					}
					return !folds(key, "name", "arguments") && d.skip(0)
				})
			}
			return !folds(key, "index", "id", "function") && d.skip(0)
		})
	})
	*out = list
	return ok
}

// array reads an array, calling elem for each element (which it must consume).
func (d *chatDecoder) array(elem func() bool) bool {
	if !d.eat('[') {
		return false
	}
	if d.eat(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.eat(']') {
			return true
		}
		if !d.eat(',') {
			return false
		}
	}
}

// object reads an object, calling field with each key (positioned at its value, which field
// must consume).
func (d *chatDecoder) object(field func(key []byte) bool) bool {
	if !d.eat('{') {
		return false
	}
	if d.eat('}') {
		return true
	}
	for {
		key, ok := d.rawString()
		if !ok || !ascii(key) || !d.eat(':') || !field(key) {
			return false
		}
		if d.eat('}') {
			return true
		}
		if !d.eat(',') {
			return false
		}
	}
}

// plainString reads a string without escapes, control characters or invalid UTF-8, returning
// its bytes (a view of the input).
func (d *chatDecoder) plainString() ([]byte, bool) {
	s, ok := d.rawString()
	return s, ok && utf8.Valid(s)
}

// rawString reads a string without escapes or control characters, returning its bytes (a view
// of the input), which may not be UTF-8.
func (d *chatDecoder) rawString() ([]byte, bool) {
	if !d.eat('"') {
		return nil, false
	}
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			return s, true
		case c == '\\' || c < 0x20:
			return nil, false
		}
		d.i++
	}
	return nil, false
}

// optString decodes a string or null (which leaves *out as it is, as encoding/json does).
func (d *chatDecoder) optString(out *string) bool {
	if d.null() {
		return true
	}
	if d.peek() != '"' {
		return false
	}
	start := d.i
	if s, ok := d.plainString(); ok {
		*out = string(s)
		return true
	}
	// Escapes or bytes that are not UTF-8: encoding/json's own unquoting, on this string alone.
	d.i = start
	if !d.skipString() {
		return false
	}
	return json.Unmarshal(d.b[start:d.i], out) == nil
}

// optInt decodes a small integer or null into an int64 field.
func (d *chatDecoder) optInt(out *int64) bool {
	if d.null() {
		return true
	}
	start := d.i
	if d.peek() == '-' {
		d.i++
	}
	digits := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	n := d.i - digits
	if n == 0 || n > 18 || (n > 1 && d.b[digits] == '0') {
		return false
	}
	if d.i < len(d.b) && (d.b[d.i] == '.' || d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		return false // not an integer: encoding/json says so
	}
	v, err := strconv.ParseInt(string(d.b[start:d.i]), 10, 64)
	if err != nil {
		return false
	}
	*out = v
	return true
}

// skip consumes one valid JSON value of any kind.
func (d *chatDecoder) skip(depth int) bool {
	if depth > maxSkipDepth {
		return false
	}
	switch d.peek() {
	case '{':
		d.i++
		if d.eat('}') {
			return true
		}
		for {
			if d.peek() != '"' || !d.skipString() || !d.eat(':') || !d.skip(depth+1) {
				return false
			}
			if d.eat('}') {
				return true
			}
			if !d.eat(',') {
				return false
			}
		}
	case '[':
		d.i++
		if d.eat(']') {
			return true
		}
		for {
			if !d.skip(depth + 1) {
				return false
			}
			if d.eat(']') {
				return true
			}
			if !d.eat(',') {
				return false
			}
		}
	case '"':
		start := d.i
		if !d.skipString() {
			return false
		}
		if sh := d.shape; sh != nil {
			if sh.holes == maxHoles {
				sh.overflow = true
			} else {
				sh.skipped[sh.holes] = span{start: start, end: d.i}
				sh.holes++
			}
		}
		return true
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	}
	return d.skipNumber()
}

// literal consumes the literal word.
func (d *chatDecoder) literal(word string) bool {
	if !bytes.HasPrefix(d.b[d.i:], []byte(word)) {
		return false
	}
	d.i += len(word)
	return true
}

// skipString consumes a string, checking its escapes as encoding/json's scanner does.
func (d *chatDecoder) skipString() bool {
	d.i++ // the opening quote
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			d.i++
			if d.i >= len(d.b) {
				return false
			}
			switch d.b[d.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if d.i+4 >= len(d.b) {
					return false
				}
				for _, h := range d.b[d.i+1 : d.i+5] {
					if !isHex(h) {
						return false
					}
				}
				d.i += 4
			default:
				return false
			}
		}
		d.i++
	}
	return false
}

// isHex reports whether c is a hexadecimal digit.
func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// skipNumber consumes a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *chatDecoder) skipNumber() bool {
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.b) && d.b[d.i] == '0':
		d.i++
	case d.i < len(d.b) && d.b[d.i] >= '1' && d.b[d.i] <= '9':
		d.digits()
	default:
		return false
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if !d.digits() {
			return false
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if !d.digits() {
			return false
		}
	}
	return true
}

// digits consumes one or more decimal digits.
func (d *chatDecoder) digits() bool {
	start := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	return d.i > start
}
