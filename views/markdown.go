package views

import (
	"regexp"
	"strings"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/ansi"
)

// mdRenderers keeps one glamour renderer per width; renderers are not safe
// for concurrent use, so each pane owns its own set.
type mdRenderers struct {
	style ansi.StyleConfig
	gen   int
	byW   map[int]*glamour.TermRenderer
	plain map[int]plainStyle // plain is how glamour renders plain prose at each width (markdown_plain.go).
	fed   int                // fed counts the source bytes rendered, for tests of how much a frame renders.
	// glamourOnly turns the plain-prose shortcut off: tests compare what it renders with it.
	glamourOnly bool
	glamoured   int // glamoured counts the renderings glamour made, for tests of the shortcut.
}

// get returns the renderer for width w, dropping all on a theme change.
func (m *mdRenderers) get(c *Common, w int) *glamour.TermRenderer {
	if m.gen != c.Generation() || m.byW == nil {
		m.gen, m.style, m.byW, m.plain = c.Generation(), c.Styles.Glamour, map[int]*glamour.TermRenderer{}, nil
	}
	if r, ok := m.byW[w]; ok {
		return r
	}
	r, err := glamour.NewTermRenderer(glamour.WithStyles(m.style), glamour.WithWordWrap(w))
	if err != nil {
		return nil
	}
	m.byW[w] = r
	return r
}

// render renders one markdown block into trimmed lines: plain prose by the
// shortcut when it gives glamour's lines at this width, the rest with glamour.
func (m *mdRenderers) render(c *Common, w int, src string) []string {
	m.fed += len(src)
	if !m.glamourOnly && plainProse(src, w) {
		m.get(c, w) // drops the learned styles on a theme change
		if ps := m.plainOf(c, w); ps.ok {
			return ps.wrap(src, w)
		}
	}
	return m.glamour(c, w, src)
}

// glamour renders one markdown block into trimmed lines with glamour.
func (m *mdRenderers) glamour(c *Common, w int, src string) []string {
	m.glamoured++
	r := m.get(c, w)
	if r == nil {
		return wrap(src, w)
	}
	out, err := r.Render(strings.ReplaceAll(Sanitize(src), "\t", "    "))
	if err != nil {
		return wrap(src, w)
	}
	// Keep only SGR: glamour emits OSC 8 hyperlinks, which a cut line
	// could leave open across the rest of the screen.
	lines := strings.Split(strings.TrimRight(Sanitize(out), "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(stripToPlain(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(stripToPlain(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = trimStyledRight(l)
	}
	return lines
}

// mdStream renders growing markdown in blocks: blocks that are complete
// (followed by a blank line outside a code fence) are rendered once and
// kept; only the open last block is rendered again when text arrives.
type mdStream struct {
	src        string   // src is the text so far.
	scan       int      // scan is where the next unscanned line starts.
	blockStart int      // blockStart is where the open block starts.
	fence      bool     // fence is true inside a code fence.
	pending    int      // pending is where a blank line may end the block, or -1.
	lines      []string // lines holds head + stable lines, then the open block's.
	stableLen  int      // stableLen is the length of the kept prefix of lines.
	blocks     int      // blocks counts completed blocks.
	width, gen int      // width and gen are what lines were rendered for.
	opener     string   // opener is the line that opened the current code fence.
	fenceLines int      // fenceLines counts code lines not yet emitted in a chunk.
	chunked    bool     // chunked is true when the open block continues an emitted code chunk.
	glue       bool     // glue joins the next block to the last without a blank line.
	list       bool     // list is true when the open block started with a list item.
	hold       paraHold // hold keeps the rendered start of a long open paragraph.
	drawn      bool     // drawn is true when lines show all of src.
}

// listItemRE matches a top-level list item line.
var listItemRE = regexp.MustCompile(`^([-*+]|[0-9]{1,9}[.)])( |$)`)

// codeChunkLines is how many lines of a long code block are rendered and
// kept at a time, so a long fence streams at a flat cost too.
const codeChunkLines = 8

// reset starts over with the given head lines (e.g. a label).
func (s *mdStream) reset(head []string, w, gen int) {
	s.scan, s.blockStart, s.fence, s.blocks, s.pending = 0, 0, false, 0, -1
	s.opener, s.fenceLines, s.chunked, s.glue, s.list = "", 0, false, false, false
	s.hold, s.drawn = paraHold{}, false
	s.lines = append(s.lines[:0], head...)
	s.stableLen, s.width, s.gen = len(head), w, gen
}

// update brings the rendering up to text and returns all lines; the slice
// is valid until the next call. grown promises that text only extends the
// previous text, which spares comparing them.
func (s *mdStream) update(m *mdRenderers, c *Common, head []string, text string, w int, grown bool) []string {
	if w != s.width || c.Generation() != s.gen || !grown && !strings.HasPrefix(text, s.src[:s.scan]) {
		s.reset(head, w, c.Generation())
	}
	if len(head) <= s.stableLen {
		copy(s.lines, head) // the head (label, spinner) may change between renders
	}
	if s.drawn && len(text) == len(s.src) && (grown || text == s.src) {
		return s.lines // only the head changed (the spinner turned): the text is drawn
	}
	s.src, s.drawn = text, true
	s.completeBlocks(m, c)
	s.endParagraph(m, c)
	s.lines = s.lines[:s.stableLen]
	if open := strings.TrimSpace(text[s.blockStart:]); open != "" {
		if s.blocks > 0 && !s.glue {
			s.lines = append(s.lines, "")
		}
		s.renderOpen(m, c)
	}
	return s.lines
}

// openPrefix reopens the code fence for a block continuing an emitted chunk.
func (s *mdStream) openPrefix() string {
	if s.chunked {
		return s.opener + "\n"
	}
	return ""
}

// closer is the fence line that closes the current code fence.
func (s *mdStream) closer() string {
	t := strings.TrimSpace(s.opener)
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	return t[:n] + "\n"
}

// completeBlocks scans the new complete lines and renders finished blocks.
// A block ends at a blank line outside a code fence, and is emitted when the
// next non-blank line starts. (Splitting loose list items apart renders
// better than glamour does with multi-paragraph items, which it runs
// together.)
func (s *mdStream) completeBlocks(m *mdRenderers, c *Common) {
	for {
		nl := strings.IndexByte(s.src[s.scan:], '\n')
		if nl < 0 {
			return
		}
		start, line := s.scan, s.src[s.scan:s.scan+nl]
		s.scan += nl + 1
		trimmed := strings.TrimSpace(line)
		fence := strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")
		switch {
		case s.fence && fence:
			s.fence = false
		case s.fence:
			if s.fenceLines++; s.fenceLines >= codeChunkLines {
				s.emitChunk(m, c)
			}
		case trimmed == "":
			if s.pending < 0 {
				s.pending = start
			}
		default:
			item := listItemRE.MatchString(line)
			switch {
			case s.pending >= 0:
				if strings.TrimSpace(s.openPrefix()+s.src[s.blockStart:s.pending]) != "" {
					s.emitLines(s.renderBlock(m, c, s.blockStart, s.pending))
				}
				s.blockStart, s.chunked, s.list = start, false, item
			case start == s.blockStart:
				s.list = item
			case s.list && item:
				// A tight list: keep each finished top-level item.
				s.emit(m, c, s.src[s.blockStart:start])
				s.blockStart, s.glue = start, true
			}
			s.pending = -1
			s.fence = fence
			if fence {
				s.opener, s.fenceLines = line, 0
			}
		}
	}
}

// endParagraph emits the open block as soon as a non-blank line has started
// after a blank line, without waiting for that line's end: completeBlocks
// would emit it at the line's end whatever the line holds, and meanwhile a
// one-line paragraph streaming after it would render the block before it
// again on every frame. The new line is scanned when it ends, as the open
// block's first.
func (s *mdStream) endParagraph(m *mdRenderers, c *Common) {
	if s.pending < 0 || s.fence || strings.TrimSpace(s.src[s.scan:]) == "" {
		return
	}
	if strings.TrimSpace(s.openPrefix()+s.src[s.blockStart:s.pending]) != "" {
		s.emitLines(s.renderBlock(m, c, s.blockStart, s.pending))
	}
	line := s.src[s.scan:] // the new block's first line so far: a list item's marker comes first
	s.blockStart, s.chunked, s.list, s.pending = s.scan, false, listItemRE.MatchString(line), -1
}

// emitChunk renders the code lines scanned so far as a closed fence and
// keeps them; the rest of the fence continues as a new open block.
func (s *mdStream) emitChunk(m *mdRenderers, c *Common) {
	s.emit(m, c, s.openPrefix()+s.src[s.blockStart:s.scan]+s.closer())
	s.blockStart, s.fenceLines, s.chunked, s.glue = s.scan, 0, true, true
}

// emit renders a completed block and keeps its lines.
func (s *mdStream) emit(m *mdRenderers, c *Common, blk string) {
	if strings.TrimSpace(blk) == "" {
		return
	}
	s.emitLines(m.render(c, s.width, blk))
}

// emitLines keeps the lines of a completed block.
func (s *mdStream) emitLines(rendered []string) {
	s.lines = s.lines[:s.stableLen]
	if s.blocks > 0 && !s.glue {
		s.lines = append(s.lines, "")
	}
	s.lines = append(s.lines, rendered...)
	s.stableLen = len(s.lines)
	s.blocks++
	s.glue = false
}

// trimStyledRight drops trailing spaces and the SGR sequences around them
// (glamour pads lines to the wrap width, one styled space at a time).
func trimStyledRight(s string) string {
	cut := false
	for {
		switch {
		case strings.HasSuffix(s, " "):
			s = strings.TrimRight(s, " ")
		case strings.HasSuffix(s, "m"):
			i := strings.LastIndex(s, "\x1b[")
			if i < 0 || !onlySGRParams(s[i+2:len(s)-1]) {
				return closeSGR(s, cut)
			}
			s, cut = s[:i], true
		default:
			return closeSGR(s, cut)
		}
	}
}

// closeSGR appends a reset when trailing sequences were cut.
func closeSGR(s string, cut bool) string {
	if cut && strings.Contains(s, "\x1b[") {
		return s + "\x1b[m"
	}
	return s
}
