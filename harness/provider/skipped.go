package provider

import (
	"encoding/json"
	"unicode/utf8"
)

// maxSkippedContent bounds what is kept of what a passed-over block held. The caller cuts
// it shorter after redacting secrets, so that a secret cut in two at this bound is dropped,
// never recorded in part.
const maxSkippedContent = 8 << 10

// Skipped is output of a type exo does not use, passed over but not lost from view: a block
// or item (a server tool's call and results), a delta of an unknown type (citations), or an
// unknown event. Count says how many of the type there were; Content is what the first held,
// as received (its JSON, then its deltas), cut at 8 KiB.
type Skipped struct {
	// Type is the block, item, delta or event type, e.g. "server_tool_use" or "citations_delta".
	Type string `json:"type"`
	// Count is how many of the type were passed over.
	Count int `json:"count,omitempty"`
	// Content is what the first one held.
	Content string `json:"content,omitempty"`
}

// UnmarshalJSON reads a record, or a bare type name as recorded before contents were.
func (s *Skipped) UnmarshalJSON(b []byte) error {
	var name string
	if json.Unmarshal(b, &name) == nil {
		*s = Skipped{Type: name, Count: 1}
		return nil
	}
	type plain Skipped
	return json.Unmarshal(b, (*plain)(s))
}

// skip records one more passed-over piece of type typ holding content. It returns the
// record's index when this is the first of its type (later pieces of the same block add to
// it with skipMore), else -1.
func (a *accumulator) skip(typ string, content []byte) int {
	for i := range a.skipped {
		if a.skipped[i].Type == typ {
			a.skipped[i].Count++
			return -1
		}
	}
	a.skipped = append(a.skipped, Skipped{Type: typ, Count: 1})
	i := len(a.skipped) - 1
	a.skipMore(i, content)
	return i
}

// skipMore adds content to record i (none when i < 0), within the bound.
func (a *accumulator) skipMore(i int, content []byte) {
	if i < 0 || i >= len(a.skipped) || len(content) == 0 {
		return
	}
	s := &a.skipped[i]
	room := maxSkippedContent - len(s.Content)
	if room <= 0 {
		return
	}
	if len(content) > room {
		for room > 0 && !utf8.RuneStart(content[room]) {
			room--
		}
		s.Content += string(content[:room]) + "…"
		return
	}
	s.Content += string(content)
}

// setSkipped replaces the content of record i (none when i < 0): an item's final form.
func (a *accumulator) setSkipped(i int, content []byte) {
	if i >= 0 && i < len(a.skipped) {
		a.skipped[i].Content = ""
		a.skipMore(i, content)
	}
}

// rawField returns the JSON of one top-level field of an event, for the rare events whose
// content exo keeps as received.
func rawField(data []byte, key string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m[key]
}
