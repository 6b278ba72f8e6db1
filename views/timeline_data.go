package views

import (
	"strings"
	"time"
)

// TimelineRow is one event as the timeline shows it.
type TimelineRow struct {
	Seq           uint64    // Seq is the event's position in the branch history.
	Time          time.Time // Time is the event's wall-clock time.
	Actor         string    // Actor is user, executor:NAME, tool:NAME or harness.
	Type          string    // Type is the dotted event type, e.g. tool.completed.
	Glyph         string    // Glyph overrides the glyph derived from Type when set.
	Summary       string    // Summary is a one-line description.
	Branch        string    // Branch is the branch id the event belongs to.
	IsBranchPoint bool      // IsBranchPoint marks an event a fork or rewind starts from.
	Abandoned     bool      // Abandoned marks events of a branch left by a rewind.
}

// TimelineSource supplies rows by index, so the timeline never copies or
// walks the whole history: only visible rows are asked for.
type TimelineSource interface {
	// Len returns the number of rows.
	Len() int
	// Row returns row i, 0 <= i < Len().
	Row(i int) TimelineRow
}

// TimelineRows is a TimelineSource over a slice.
type TimelineRows []TimelineRow

// Len returns the number of rows.
func (r TimelineRows) Len() int { return len(r) }

// Row returns row i.
func (r TimelineRows) Row(i int) TimelineRow { return r[i] }

// eventGlyphs maps an event family (the type's first segment) to its glyph.
var eventGlyphs = map[string]string{
	"session": "◆", "invocation": "»", "step": "·", "model": "◇", "tool": "▣",
	"task": "▤", "artifact": "▢", "workspace": "▦", "secret": "⊘", "policy": "!",
	"approval": "?", "compaction": "≡", "handoff": "⇄",
}

// Family returns the event family of a dotted type: its first segment.
func Family(eventType string) string {
	if i := strings.IndexByte(eventType, '.'); i >= 0 {
		return eventType[:i]
	}
	return eventType
}

// GlyphFor returns the glyph for an event type.
func GlyphFor(eventType string) string {
	if g, ok := eventGlyphs[Family(eventType)]; ok {
		return g
	}
	return "•"
}

// matches reports whether the row matches a lower-cased filter query.
func (r TimelineRow) matches(q string) bool {
	return q == "" || strings.Contains(strings.ToLower(r.Type), q) ||
		strings.Contains(strings.ToLower(r.Summary), q) || strings.Contains(strings.ToLower(r.Actor), q)
}
