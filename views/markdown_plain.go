package views

import "strings"

// A streaming answer's open paragraph is rendered on every frame; when it is
// plain prose (words of letters, digits and common punctuation, one space
// apart) glamour's rendering of it is the words wrapped greedily at the width,
// each line between the same two SGR sequences. Those sequences are learned
// from glamour once per width and theme, and the shortcut is taken only when
// glamour's rendering of a probe that wraps, breaks and punctuates as prose does
// is exactly what the shortcut gives for it; anything else goes to glamour.

// plainStyle is how glamour renders a plain paragraph at one width: each line
// is pre + words + post. ok is false when the shortcut does not hold there.
type plainStyle struct {
	ok        bool
	pre, post string
}

// plainProbe is rendered by glamour and by the shortcut to check one against
// the other: words of every length up to a few, punctuation the shortcut
// allows, and enough of them to wrap at any width the shortcut serves.
const plainProbe = "It is a plain line, with words (some quoted: \"so\") and 'marks'; does it wrap? Yes! " +
	"a bb ccc dddd eeeee ffffff ggggggg hhhhhhhh iiiiiiiii jjjjjjjjjj 0 12 345 6789 " +
	"abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi " +
	"abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi abcdefghi end."

// plainMinWidth is the narrowest width the shortcut serves: narrower, words of
// the probe would be broken, which the shortcut leaves to glamour.
const plainMinWidth = 12

// plainOf returns the plain style at width w, learning it on first use.
func (m *mdRenderers) plainOf(c *Common, w int) plainStyle {
	if ps, ok := m.plain[w]; ok {
		return ps
	}
	ps := plainStyle{}
	if w >= plainMinWidth {
		if one := m.glamour(c, w, "a"); len(one) == 1 {
			if pre, post, found := strings.Cut(one[0], "a"); found && !strings.Contains(pre+post, "a") {
				ps = plainStyle{ok: true, pre: pre, post: post}
				if !equalLines(ps.wrap(plainProbe, w), m.glamour(c, w, plainProbe)) {
					ps = plainStyle{}
				}
			}
		}
	}
	if m.plain == nil {
		m.plain = map[int]plainStyle{}
	}
	m.plain[w] = ps
	return ps
}

// wrap renders plain prose src (see plainProse) at width w. Glamour's parser
// ends a paragraph's text with a node of its own from the last space on (each
// space may start an autolink, and the text after the last one is not merged
// with the text before it), so the last word is styled apart when it shares a
// line with the word before it.
func (ps plainStyle) wrap(src string, w int) []string {
	var lines []string
	var b strings.Builder
	n := 0
	src = strings.TrimSuffix(src, " ") // the paragraph's line is trimmed before it is parsed
	last := strings.LastIndexByte(src, ' ')
	at := 0
	for word := range strings.SplitSeq(src, " ") {
		if n > 0 && n+1+len(word) > w {
			b.WriteString(ps.post)
			lines = append(lines, b.String())
			b.Reset()
			n = 0
		}
		switch {
		case n == 0:
			b.WriteString(ps.pre)
		case at == last+1:
			b.WriteString(ps.post)
			b.WriteString(ps.pre)
			b.WriteByte(' ')
			n++
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
		at += len(word) + 1
	}
	b.WriteString(ps.post)
	return append(lines, b.String())
}

// plainProse reports whether src is one paragraph of plain prose whose words
// all fit in w columns: ASCII letters, digits and the punctuation ,.;:?!'"()
// only, words one space apart, starting with a letter, one space at most at
// its end. Such text starts no block and holds no inline construct. Of its
// characters, spaces, ( and ! start parsers of glamour's (an autolink, an
// image), which find nothing here: a dot or colon inside a word is left out
// (www.example.com, http://…), and ( and ! only come before the last space,
// so that the text after the last space is the paragraph's last node, as the
// shortcut's wrap assumes. Glamour renders such text as its words wrapped at
// the width.
func plainProse(src string, w int) bool {
	if src == "" || !isLetter(src[0]) || strings.HasSuffix(src, "  ") {
		return false
	}
	last := strings.LastIndexByte(strings.TrimSuffix(src, " "), ' ')
	word := 0
	for i := 0; i < len(src); i++ {
		b := src[i]
		switch {
		case b == ' ':
			if word == 0 {
				return false // two spaces: a hard line break at a line's end
			}
			word = 0
			continue
		case isLetter(b) || b >= '0' && b <= '9':
		case b == '.' || b == ':':
			if i+1 < len(src) && src[i+1] != ' ' {
				return false
			}
		case b == '(' || b == '!':
			if i > last {
				return false
			}
		case strings.IndexByte(",;?'\")", b) >= 0:
		default:
			return false
		}
		if word++; word > w {
			return false
		}
	}
	return true
}

// isLetter reports whether b is an ASCII letter.
func isLetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }
