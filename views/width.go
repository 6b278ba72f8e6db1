package views

import (
	"sync"

	"github.com/charmbracelet/x/ansi"
)

// widthMemoSize is how many measured lines a generation of the width memo holds.
const widthMemoSize = 4096

// widthMemoMin and widthMemoMax bound the strings remembered: shorter ones cost less to
// measure than to look up, longer ones are not screen lines and would hold memory.
const (
	widthMemoMin = 24
	widthMemoMax = 4096
)

// memo remembers the cell widths of recently drawn lines. A frame measures
// the same lines several times (the pane's frame, the columns, the screen)
// and the next frame mostly draws the same lines again, shifted; the
// grapheme walk behind a width costs far more than a map lookup. Two
// generations bound its size: when the new one fills, the old one is dropped.
type memo struct {
	mu       sync.Mutex
	cur, old map[string]int
}

// widths is the process's width memo (lines are drawn from one goroutine, tests from several).
var widths memo

// Width returns the cell width of s (escape sequences take none), as
// ansi.StringWidth does, remembering the widths of long strings.
func Width(s string) int {
	if len(s) < widthMemoMin || len(s) > widthMemoMax {
		return ansi.StringWidth(s)
	}
	if w, ok := widths.get(s); ok {
		return w
	}
	w := ansi.StringWidth(s)
	widths.put(s, w)
	return w
}

// get returns the remembered width of s, moving it to the current generation.
func (m *memo) get(s string) (int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if w, ok := m.cur[s]; ok {
		return w, true
	}
	w, ok := m.old[s]
	if ok {
		m.putLocked(s, w)
	}
	return w, ok
}

// put remembers the width of s.
func (m *memo) put(s string, w int) {
	m.mu.Lock()
	m.putLocked(s, w)
	m.mu.Unlock()
}

// putLocked stores a width in the current generation, starting a new one when it is full.
func (m *memo) putLocked(s string, w int) {
	if m.cur == nil || len(m.cur) >= widthMemoSize {
		m.old, m.cur = m.cur, make(map[string]int, widthMemoSize)
	}
	m.cur[s] = w
}
