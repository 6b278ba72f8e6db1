package api

import "encoding/json"

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
