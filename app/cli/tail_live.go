package cli

import (
	"io"
)

// flusher is a table being written: its rows reach the terminal on Flush.
type flusher interface {
	io.Writer
	Flush() error
}

// liveText prints a streaming answer between a tail's event lines: the reasoning after a
// "thinking:" mark, the text after a blank indent, each ended by a newline before the next
// event line.
type liveText struct {
	w    io.Writer
	mode liveMode
}

// liveMode is what a liveText prints now.
type liveMode int

const (
	liveNone liveMode = iota
	liveReasoning
	liveAnswer
)

// reasoning prints streamed reasoning.
func (l *liveText) reasoning(s string) { l.write(liveReasoning, "  thinking: ", s) }

// text prints streamed answer text.
func (l *liveText) text(s string) { l.write(liveAnswer, "  ", s) }

// write prints s in mode m, starting a new line with mark when the mode changes.
func (l *liveText) write(m liveMode, mark, s string) {
	if s == "" {
		return
	}
	if l.mode != m {
		l.end()
		io.WriteString(l.w, mark)
		l.mode = m
	}
	io.WriteString(l.w, s)
}

// end closes the streamed line before an event line.
func (l *liveText) end() {
	if l.mode != liveNone {
		io.WriteString(l.w, "\n")
		l.mode = liveNone
	}
}
