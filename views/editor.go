package views

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// editor is a small multi-line text editor with soft wrapping.
//
// Why not bubbles' textarea (charm.land/bubbles/v2 v2.2.1, which the filters' lineInput uses
// through textinput; the clipboard module it needs is in the build now): two things the prompt
// shows would change. textarea word-wraps (its wrap function moves a word that does not fit to
// the next line), where the prompt cuts a line at the last cell that fits, wide characters
// counted by ansi.StringWidth as every pane does; and textarea styles a line with one Text
// style, with no hook like decorate, which colours @mentions and paste chips piece by piece.
// TestEditorWrapsAtTheCell holds both. The queue, history, @ completion, ctrl+g and pastes are
// Input's, above the editor, and would stay as they are.
type editor struct {
	lines    [][]rune
	row, col int
	top      int // top is the first visual line shown.
	// decorate, when set, styles each wrapped chunk of text before the cursor is drawn.
	decorate func(string) string
}

// newEditor returns an empty editor.
func newEditor() editor { return editor{lines: [][]rune{nil}} }

// Value returns the text.
func (e *editor) Value() string {
	parts := make([]string, len(e.lines))
	for i, l := range e.lines {
		parts[i] = string(l)
	}
	return strings.Join(parts, "\n")
}

// SetValue replaces the text and puts the cursor at its end.
func (e *editor) SetValue(s string) {
	d := e.decorate
	*e = newEditor()
	e.decorate = d
	e.Insert(s)
}

// Reset empties the editor.
func (e *editor) Reset() {
	d := e.decorate
	*e = newEditor()
	e.decorate = d
}

// Line returns the cursor's line.
func (e *editor) Line() int { return e.row }

// LineCount returns the number of lines.
func (e *editor) LineCount() int { return len(e.lines) }

// Insert inserts text at the cursor.
func (e *editor) Insert(s string) {
	for _, r := range strings.ReplaceAll(s, "\r\n", "\n") {
		switch {
		case r == '\n':
			e.newline()
		case r == '\t':
			e.insertRune(' ')
			e.insertRune(' ')
		case unicode.IsControl(r):
		default:
			e.insertRune(r)
		}
	}
}

// insertRune inserts one rune at the cursor.
func (e *editor) insertRune(r rune) {
	l := e.lines[e.row]
	l = append(l[:e.col], append([]rune{r}, l[e.col:]...)...)
	e.lines[e.row] = l
	e.col++
}

// newline splits the line at the cursor.
func (e *editor) newline() {
	l := e.lines[e.row]
	head, tail := append([]rune(nil), l[:e.col]...), append([]rune(nil), l[e.col:]...)
	e.lines[e.row] = head
	e.lines = append(e.lines[:e.row+1], append([][]rune{tail}, e.lines[e.row+1:]...)...)
	e.row, e.col = e.row+1, 0
}

// backspace deletes the rune before the cursor, joining lines at column 0.
func (e *editor) backspace() {
	switch {
	case e.col > 0:
		l := e.lines[e.row]
		e.lines[e.row] = append(l[:e.col-1], l[e.col:]...)
		e.col--
	case e.row > 0:
		prev := e.lines[e.row-1]
		e.col = len(prev)
		e.lines[e.row-1] = append(prev, e.lines[e.row]...)
		e.lines = append(e.lines[:e.row], e.lines[e.row+1:]...)
		e.row--
	}
}

// deleteForward deletes the rune under the cursor.
func (e *editor) deleteForward() {
	l := e.lines[e.row]
	switch {
	case e.col < len(l):
		e.lines[e.row] = append(l[:e.col], l[e.col+1:]...)
	case e.row < len(e.lines)-1:
		e.lines[e.row] = append(l, e.lines[e.row+1]...)
		e.lines = append(e.lines[:e.row+1], e.lines[e.row+2:]...)
	}
}

// deleteWord deletes the word before the cursor.
func (e *editor) deleteWord() {
	l := e.lines[e.row]
	i := e.col
	for i > 0 && l[i-1] == ' ' {
		i--
	}
	for i > 0 && l[i-1] != ' ' {
		i--
	}
	e.lines[e.row] = append(l[:i], l[e.col:]...)
	e.col = i
}

// handle applies an editing key; it reports whether the key was used.
func (e *editor) handle(msg tea.KeyPressMsg) bool {
	switch msg.String() {
	case "left", "ctrl+b":
		e.moveCol(-1)
	case "right", "ctrl+f":
		e.moveCol(1)
	case "up":
		e.moveRow(-1)
	case "down":
		e.moveRow(1)
	case "home", "ctrl+a":
		e.col = 0
	case "end", "ctrl+e":
		e.col = len(e.lines[e.row])
	case "backspace", "ctrl+h":
		e.backspace()
	case "delete", "ctrl+d":
		e.deleteForward()
	case "ctrl+w", "alt+backspace":
		e.deleteWord()
	case "ctrl+u":
		e.lines[e.row] = append([]rune(nil), e.lines[e.row][e.col:]...)
		e.col = 0
	case "ctrl+k":
		e.lines[e.row] = e.lines[e.row][:e.col]
	case "space":
		e.insertRune(' ')
	default:
		if msg.Text == "" || msg.Mod&(tea.ModCtrl|tea.ModAlt) != 0 {
			return false
		}
		e.Insert(msg.Text)
	}
	return true
}

// moveCol moves the cursor left or right across line ends.
func (e *editor) moveCol(d int) {
	e.col += d
	switch {
	case e.col < 0 && e.row > 0:
		e.row--
		e.col = len(e.lines[e.row])
	case e.col > len(e.lines[e.row]) && e.row < len(e.lines)-1:
		e.row, e.col = e.row+1, 0
	}
	e.col = min(max(e.col, 0), len(e.lines[e.row]))
}

// moveRow moves the cursor up or down a line.
func (e *editor) moveRow(d int) {
	e.row = min(max(e.row+d, 0), len(e.lines)-1)
	e.col = min(e.col, len(e.lines[e.row]))
}

// view renders h visual lines of w cells, wrapping long lines and keeping
// the cursor in view; cursor draws the cursor cell when focused.
func (e *editor) view(w, h int, prompt, cont string, cursor func(string) string) []string {
	pw := ansi.StringWidth(prompt)
	tw := max(w-pw, 1)
	var vis []string
	cursorLine := 0
	for r, l := range e.lines {
		chunks, at := wrapRunes(l, tw, r == e.row, e.col)
		if r == e.row {
			cursorLine = len(vis) + at
		}
		for i, c := range chunks {
			if e.decorate != nil {
				c = e.decorate(c)
			}
			p := cont
			if r == 0 && i == 0 {
				p = prompt
			}
			vis = append(vis, p+c)
		}
	}
	if cursor != nil {
		vis[cursorLine] = drawCursor(vis[cursorLine], pw, e.cursorCell(tw), cursor)
	}
	e.top = min(max(e.top, cursorLine-h+1), cursorLine)
	return vis[e.top:min(len(vis), e.top+h)]
}

// visualLines counts the lines the text takes wrapped at tw cells.
func (e *editor) visualLines(tw int) int {
	n := 0
	for r, l := range e.lines {
		chunks, _ := wrapRunes(l, max(tw, 1), r == e.row, e.col)
		n += len(chunks)
	}
	return n
}

// cursorCell is the cursor's column within its visual line.
func (e *editor) cursorCell(tw int) int {
	w := ansi.StringWidth(string(e.lines[e.row][:e.col]))
	if w > 0 && w%tw == 0 && e.col == len(e.lines[e.row]) {
		return tw
	}
	return w % tw
}

// wrapRunes cuts a line into chunks of at most w cells and tells in which
// chunk the cursor column falls.
func wrapRunes(l []rune, w int, hasCursor bool, col int) ([]string, int) {
	var chunks []string
	var b strings.Builder
	cw, at, start := 0, 0, 0
	for i, r := range l {
		rw := ansi.StringWidth(string(r))
		if cw+rw > w {
			chunks = append(chunks, b.String())
			b.Reset()
			cw, start = 0, i
		}
		if hasCursor && i == col {
			at = len(chunks)
		}
		b.WriteRune(r)
		cw += rw
	}
	if hasCursor && col >= len(l) && col > start {
		at = len(chunks)
		if cw >= w {
			chunks = append(chunks, b.String())
			b.Reset()
			at = len(chunks)
		}
	}
	return append(chunks, b.String()), at
}

// drawCursor styles the cell at column col (after the prompt) as the cursor.
func drawCursor(line string, pw, col int, cursor func(string) string) string {
	x := pw + col
	cell := ansi.Cut(line, x, x+1)
	if cell == "" {
		cell = " "
	}
	return ansi.Cut(line, 0, x) + cursor(cell) + ansi.Cut(line, x+1, ansi.StringWidth(line))
}

// wordBeforeCursor returns the text from the last space before the cursor up to it.
func (e *editor) wordBeforeCursor() string {
	l := e.lines[e.row][:e.col]
	i := len(l)
	for i > 0 && !unicode.IsSpace(l[i-1]) {
		i--
	}
	return string(l[i:])
}

// replaceWordBeforeCursor replaces what wordBeforeCursor returns with s.
func (e *editor) replaceWordBeforeCursor(s string) {
	for range []rune(e.wordBeforeCursor()) {
		e.backspace()
	}
	e.Insert(s)
}
