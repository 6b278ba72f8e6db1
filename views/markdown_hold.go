package views

import "strings"

// A streaming answer's open block is rendered again on every frame. For a
// long paragraph that is quadratic (glamour on the whole growing block), so
// the lines of its start are held: rendered once, checked against the
// rendering of the whole block, and kept while only the tail is rendered
// again. A hold is made only where nothing can join the held text to what
// follows, so the lines are exactly what rendering the whole block gives.
const (
	holdMinLines  = 6 // holdMinLines is how long the unheld tail's rendering grows before a hold.
	holdKeepLines = 2 // holdKeepLines is how many of its last lines stay unheld.
	holdTries     = 4 // holdTries is how many line starts a hold attempt tries.
)

// paraHold is the held start of the open block.
type paraHold struct {
	start int      // start is the block start the hold belongs to.
	at    int      // at is where the unheld tail starts in the source (≤ start: nothing held).
	lines []string // lines is the held text's rendering.
	retry int      // retry is the tail length, in lines, at which to try again after a failure.
}

// holdOpeners are the characters that, left unmatched in the held text, could
// pair with text still to come (emphasis, code spans, strikethrough, links,
// inline HTML and autolinks); their rendering shows them only when unmatched
// or literal, so a held rendering must show none of them.
const holdOpeners = "*_~`[<"

// holdable reports whether the open block can be held: a paragraph on one
// line (a second line could make the block a heading or a table), outside a
// code fence.
func (s *mdStream) holdable(from int) bool {
	if s.fence || s.chunked || s.list {
		return false
	}
	return !strings.Contains(strings.TrimRight(s.src[from:], " \t\r\n"), "\n")
}

// renderOpen appends the open block's rendering to s.lines, rendering only
// what follows the hold, and holds more when the tail grew long.
func (s *mdStream) renderOpen(m *mdRenderers, c *Common) {
	from := s.blockStart
	if s.hold.start == s.blockStart && s.hold.at > from {
		from = s.hold.at
	} else {
		s.hold = paraHold{start: s.blockStart}
	}
	if !s.holdable(from) {
		s.hold = paraHold{start: s.blockStart}
		s.lines = append(s.lines, m.render(c, s.width, s.openPrefix()+s.src[s.blockStart:])...)
		return
	}
	tail := m.render(c, s.width, s.src[from:])
	s.lines = append(s.lines, s.hold.lines...)
	s.lines = append(s.lines, tail...)
	if len(tail) >= holdMinLines && len(tail) >= s.hold.retry {
		s.tryHold(m, c, from, tail)
	}
}

// tryHold holds the tail's lines but its last holdKeepLines when it can cut
// the source at the start of one of the last few lines: the rendering of the
// text from the cut must be the tail's last lines, and the held lines must
// show nothing that later text could pair with. Otherwise it waits until the
// tail is twice as long.
func (s *mdStream) tryHold(m *mdRenderers, c *Common, from int, tail []string) {
	for k := len(tail) - holdKeepLines; k > 0 && k > len(tail)-holdKeepLines-holdTries; k-- {
		at := fieldStart(s.src, from, countFields(tail[:k]))
		if at <= from || !plainCut(s.src[from:at]) || !plainStart(s.src[at:]) || showsOpener(tail[:k]) {
			continue
		}
		if !equalLines(m.render(c, s.width, s.src[at:]), tail[k:]) {
			continue
		}
		s.hold.lines = append(s.hold.lines, tail[:k]...)
		s.hold.at, s.hold.retry = at, 0
		return
	}
	s.hold.retry = 2 * len(tail)
}

// renderBlock renders the completed block src[start:end], starting from the
// hold when it covers the block's start.
func (s *mdStream) renderBlock(m *mdRenderers, c *Common, start, end int) []string {
	h := s.hold
	if h.start != start || h.at <= start || h.at > end || s.chunked ||
		strings.Contains(strings.TrimRight(s.src[h.at:end], " \t\r\n"), "\n") {
		return m.render(c, s.width, s.openPrefix()+s.src[start:end])
	}
	tail := m.render(c, s.width, s.src[h.at:end])
	return append(append(make([]string, 0, len(h.lines)+len(tail)), h.lines...), tail...)
}

// countFields counts the words shown on lines.
func countFields(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(strings.Fields(stripToPlain(l)))
	}
	return n
}

// fieldStart returns where the word after the first n words of src[from:]
// starts, or -1 when there are not that many.
func fieldStart(src string, from, n int) int {
	i := from
	for {
		for i < len(src) && isSpace(src[i]) {
			i++
		}
		if i == len(src) {
			return -1
		}
		if n == 0 {
			return i
		}
		for i < len(src) && !isSpace(src[i]) {
			i++
		}
		n--
	}
}

// isSpace reports whether b separates words.
func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// plainCut reports whether held source text holds nothing that a later byte
// could change: no control characters (an escape sequence left open) and no
// line break.
func plainCut(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 && b != ' ' || b == 0x7f {
			return false
		}
	}
	return true
}

// plainStart reports whether a tail starting with s renders as the rest of
// a paragraph: its first word starts no block (heading, quote, list, fence,
// table, HTML, link definition) and no inline construct.
func plainStart(s string) bool {
	if s == "" || strings.ContainsRune("#>-+*=|<[!`~_:&\\", rune(s[0])) {
		return false
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i == 0 || i < len(s) && s[i] != '.' && s[i] != ')'
}

// showsOpener reports whether rendered lines show a character that could
// open an inline construct.
func showsOpener(lines []string) bool {
	for _, l := range lines {
		if strings.ContainsAny(stripToPlain(l), holdOpeners) {
			return true
		}
	}
	return false
}

// equalLines reports whether a and b are the same lines.
func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
