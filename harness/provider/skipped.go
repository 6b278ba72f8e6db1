package provider

import (
	"encoding/json"
	"unicode/utf8"
)

// maxSkippedContent bounds what is kept of what a passed-over block held. The caller cuts
// it shorter after redacting secrets, so that a secret cut in two at this bound is dropped,
// never recorded in part.
const maxSkippedContent = 8 << 10

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
