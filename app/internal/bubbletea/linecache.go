package tea

import (
	"hash/maphash"
	"strings"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// This file is exo's patch (see PATCH.md): in the alternate screen, a frame
// draws into the cell buffer only the lines that differ from the last frame's.
//
// Upstream clears the whole cell buffer and parses the whole frame into it
// every frame, so every line with something on it is marked touched and the
// terminal renderer compares it cell by cell with the screen. A streaming
// answer changes one or two lines of a full-screen frame; the rest were parsed
// and compared for nothing. Here a line equal (byte for byte) to the last
// frame's line at the same row keeps its cells and stays untouched, and a
// changed line is drawn alone into its row, which is what the whole-frame
// parse would have put there provided no line carries state into the next
// (see selfContained). Anything else takes upstream's path.

// lineCache is what the last frame drew, row by row.
type lineCache struct {
	valid bool
	// settled is set by a whole frame drawn while nothing was invalid: after
	// a resize the renderer's screen model can miss cells of the first frame
	// (the frame after it writes them again), so the first whole frame after
	// an invalidation does not make the cache valid; the second does.
	settled bool
	scr     *uv.TerminalRenderer // the renderer whose screen model holds these rows
	method  ansi.Method
	width   int
	rows    []string // each row's text, "" past the frame's last line
	hashes  []uint64 // each row's cell contents, hashed as the renderer's scroll detection does
	seed    maphash.Seed
	// changedLast marks the rows the last frame drew; hashAll is set when
	// the renderer must hash every row of the next frame (see skipHashing).
	changedLast []bool
	hashAll     bool

	// off makes every frame take upstream's whole-frame path (tests compare
	// the two).
	off bool
	// fastFrames and fullFrames count frames drawn each way (tests read them).
	fastFrames, fullFrames int
}

// invalidate makes the next frame take the whole-frame path.
func (c *lineCache) invalidate() { c.valid, c.settled = false, false }

// drawFrame draws content into s.cellbuf, line by line when it can, and
// remembers what it drew. s.mu is held; the caller has resized the buffer to
// frameArea already.
func (s *cursedRenderer) drawFrame(view *View, content *uv.StyledString, frameArea uv.Rectangle, altChange bool) {
	c := &s.lines
	if c.seed == (maphash.Seed{}) {
		c.seed = maphash.MakeSeed()
	}
	h := frameArea.Dy()
	lines := splitRows(view.Content, h)
	eligible := !c.off && view.AltScreen && !altChange && frameArea.Min == (uv.Position{}) &&
		frameArea.Dx() == s.width && h == s.height && h > 0
	if eligible && c.valid && c.scr == s.scr && c.method == s.cellbuf.Method &&
		c.width == frameArea.Dx() && len(c.rows) == h && s.drawChanged(lines) {
		c.fastFrames++
		return
	}
	// Upstream's path: clear and parse the whole frame.
	s.cellbuf.Clear()
	content.Draw(s.cellbuf, s.cellbuf.Bounds())
	c.fullFrames++
	c.valid = false
	if !eligible || !allSelfContained(lines, s.cellbuf.Method) {
		return
	}
	if !c.settled {
		c.settled = true
		return
	}
	c.rows = append(c.rows[:0], lines...)
	c.hashes = c.hashes[:0]
	for y := range h {
		c.hashes = append(c.hashes, s.rowHash(y))
	}
	c.valid, c.scr, c.method, c.width = true, s.scr, s.cellbuf.Method, frameArea.Dx()
	c.hashAll = true
}

// drawChanged draws the rows of lines that differ from the last frame's and
// reports whether it could: false, having drawn nothing, when a changed line
// is not self-contained.
func (s *cursedRenderer) drawChanged(lines []string) bool {
	c := &s.lines
	var changed []int
	for y, l := range lines {
		if l != c.rows[y] {
			if !selfContained(l, s.cellbuf.Method) {
				return false
			}
			changed = append(changed, y)
		}
	}
	width := s.cellbuf.Width()
	for _, y := range changed {
		// As upstream's path: blank the row without marking it touched, so
		// only the cells drawn are (the renderer then compares the same
		// stretch of the row and writes the same bytes).
		row := s.cellbuf.Lines[y]
		for x := range row {
			row[x] = uv.EmptyCell
		}
		uv.NewStyledString(lines[y]).Draw(s.cellbuf, uv.Rect(0, y, width, 1))
		c.rows[y] = lines[y]
	}
	// The renderer's scroll detection moves lines of its screen model when a
	// changed row's contents equal another row's of the last frame; rows in
	// the moved region must then be compared again, so all are touched, as
	// upstream's whole-frame draw would have. Rows that did not change can
	// never be such a match (their hash is their own row's).
	//
	// The renderer also erases from above the first of the bottom rows that
	// became blank to the screen's end (clearBottom), which takes the row
	// above them too, redrawn only if touched: a row that became blank
	// touches all rows as well.
	moved := false
	for _, y := range changed {
		if blankRow(s.cellbuf.Line(y)) {
			moved = true
		}
		nh := s.rowHash(y)
		for j, oh := range c.hashes {
			if j != y && oh == nh {
				moved = true
			}
		}
		c.hashes[y] = nh
	}
	if moved {
		for y := range lines {
			s.cellbuf.TouchLine(0, y, width)
		}
	}
	s.skipHashing(changed, moved)
	return true
}

// skipHashing clears the Touched entry of every row that changed neither in
// this frame nor in the last. The renderer's scroll detection hashes every
// row whose entry is not nil, in its screen model and in the frame: twice
// the cells of the screen every frame. Such a row has the same cells in both
// as when the renderer last hashed it, so its hashes stand; a nil entry is
// also what the renderer's own touchLine gives a row it knows unchanged, and
// the row is neither hashed nor compared. After a whole frame, or one that
// touched all rows, every row is hashed again.
func (s *cursedRenderer) skipHashing(changed []int, moved bool) {
	c := &s.lines
	now := make([]bool, len(c.rows))
	for _, y := range changed {
		now[y] = true
	}
	if !moved && !c.hashAll && len(c.changedLast) == len(now) && len(s.cellbuf.Touched) == len(now) {
		for y := range now {
			if !now[y] && !c.changedLast[y] {
				s.cellbuf.Touched[y] = nil
			}
		}
	}
	c.changedLast, c.hashAll = now, moved
}

// blankRow reports whether every cell of a row is a space, whatever its style.
func blankRow(l uv.Line) bool {
	for _, c := range l {
		if c.Content != " " {
			return false
		}
	}
	return true
}

// rowHash hashes the contents of row y's cells.
func (s *cursedRenderer) rowHash(y int) uint64 {
	var h maphash.Hash
	h.SetSeed(s.lines.seed)
	for _, cell := range s.cellbuf.Line(y) {
		_, _ = h.WriteString(cell.Content)
	}
	return h.Sum64()
}

// splitRows splits a frame into exactly h rows: "\r\n" is a newline, as
// [uv.StyledString.Draw] takes it; missing rows are empty and rows past h are
// dropped (the whole-frame draw stops at the buffer's bottom).
func splitRows(content string, h int) []string {
	content = strings.ReplaceAll(content, "\r\n", "\n")
	rows := make([]string, 0, h)
	for len(rows) < h {
		i := strings.IndexByte(content, '\n')
		if i < 0 {
			rows = append(rows, content)
			break
		}
		rows = append(rows, content[:i])
		content = content[i+1:]
	}
	for len(rows) < h {
		rows = append(rows, "")
	}
	return rows
}

// allSelfContained reports whether every line is selfContained.
func allSelfContained(lines []string, m ansi.Method) bool {
	for _, l := range lines {
		if !selfContained(l, m) {
			return false
		}
	}
	return true
}

// selfContained reports whether a line draws the same cells alone as it does
// inside a whole frame whose every line is self-contained: it holds only
// printable text and SGR sequences (no other control or escape sequence, so
// no hyperlink and nothing that accumulates into the next cell), its last SGR
// resets the style (nothing carries into the next line), its first grapheme
// is not zero-width (which the parser would fold into the previous line's last
// cell) and neither is its last rune.
func selfContained(line string, m ansi.Method) bool {
	styled, first := false, true
	last := -1 // where the last non-ASCII rune starts, if it is the line's last printable
	for i := 0; i < len(line); {
		b := line[i]
		switch {
		case b == 0x1b:
			if i+1 >= len(line) || line[i+1] != '[' {
				return false
			}
			j := i + 2
			for j < len(line) && line[j] >= 0x30 && line[j] <= 0x3f {
				j++
			}
			if j >= len(line) || line[j] != 'm' {
				return false
			}
			p := line[i+2 : j]
			styled = p != "" && p != "0"
			i = j + 1
		case b < 0x20 || b == 0x7f:
			return false
		case b < 0x80:
			first, last = false, -1
			i++
		default:
			r, size := utf8.DecodeRuneInString(line[i:])
			if r == utf8.RuneError && size <= 1 || r < 0xa0 {
				return false // not UTF-8 (a lone byte could be read as a C1 control), or a C1 control
			}
			last = i
			if first {
				if m != ansi.GraphemeWidth {
					m = ansi.WcWidth // as the parser's segmenter
				}
				cluster, w := ansi.FirstGraphemeCluster(line[i:], m)
				if w <= 0 || cluster == "" {
					return false
				}
				_, ls := utf8.DecodeLastRuneInString(cluster)
				first, last = false, i+len(cluster)-ls
				i += len(cluster)
				continue
			}
			i += size
		}
	}
	if last >= 0 {
		// A zero-width rune last (a combining mark, a joiner) is kept at the
		// end of the whole frame but not before a newline, or it moves into
		// the next line: upstream's parser, not a line of its own.
		r, _ := utf8.DecodeRuneInString(line[last:])
		if ansi.StringWidth(string(r)) == 0 {
			return false
		}
	}
	return !styled
}
