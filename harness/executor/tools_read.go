package executor

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// read_file's bounds: what one call returns at most, and how much of one line it shows.
// Memory stays bounded by them whatever the file: a 2 GiB line is never held.
const (
	maxReadBytes = 256 << 10
	maxLineBytes = 2000
)

// readLines returns numbered lines from offset, at most limit (0: until maxReadBytes). A line
// longer than maxLineBytes is cut, and reading stops there with a note saying how much was
// shown and how to read the rest.
func readLines(f io.Reader, name string, size int64, offset, limit int) toolOutput {
	r := bufio.NewReaderSize(f, 64<<10)
	var b strings.Builder
	line, shown := 0, 0
	var pos int64 // byte offset where the current line starts
	for {
		if line+1 < offset {
			n, err := skipLine(r)
			if n == 0 && err != nil {
				break
			}
			line, pos = line+1, pos+n
			continue
		}
		text, cut, err := lineHead(r, maxLineBytes)
		if len(text) == 0 && err != nil {
			break
		}
		line++
		if shown == 0 && bytes.IndexByte(text, 0) >= 0 {
			return failed(name + " looks binary (it contains NUL bytes); inspect it with bash (e.g. xxd | head)")
		}
		fmt.Fprintf(&b, "%6d\t%s\n", line, strings.ToValidUTF8(string(trimRune(bytes.TrimSuffix(text, []byte("\n")), cut)), "\uFFFD"))
		shown++
		pos += int64(len(text))
		if cut {
			fmt.Fprintf(&b, "[line %d is longer than %d bytes and was cut at byte %d of %d; read the rest with bash, e.g. tail -c +%d %s | head -c 65536; read_file with offset %d goes on after it]\n",
				line, maxLineBytes, pos, size, pos+1, shellQuote(name), line+1)
			break
		}
		if (limit > 0 && shown >= limit) || b.Len() > maxReadBytes {
			fmt.Fprintf(&b, "[stopped at line %d (%d of %d bytes shown up to here); read on with offset %d]\n", line, pos, size, line+1)
			break
		}
	}
	if shown == 0 {
		return toolOutput{text: fmt.Sprintf("[%s has %d lines; nothing at offset %d]", name, line, offset)}
	}
	return toolOutput{text: b.String()}
}

// lineHead reads the next line up to max bytes; cut is true when the line goes on (the rest
// stays unread).
func lineHead(r *bufio.Reader, max int) (text []byte, cut bool, err error) {
	for len(text) < max {
		chunk, err := r.ReadSlice('\n')
		room := max - len(text)
		if len(chunk) > room {
			text = append(text, chunk[:room]...)
			return text, true, nil
		}
		text = append(text, chunk...)
		if err != bufio.ErrBufferFull {
			return text, false, err
		}
	}
	next, perr := r.Peek(1)
	return text, perr == nil && len(next) == 1 && !bytes.HasSuffix(text, []byte("\n")), nil
}

// skipLine discards the next line and returns its length.
func skipLine(r *bufio.Reader) (int64, error) {
	var n int64
	for {
		chunk, err := r.ReadSlice('\n')
		n += int64(len(chunk))
		if err != bufio.ErrBufferFull {
			return n, err
		}
	}
}

// trimRune drops an incomplete UTF-8 sequence left at the end of a cut line.
func trimRune(p []byte, cut bool) []byte {
	if !cut {
		return p
	}
	for i := 1; i <= utf8.UTFMax && i <= len(p); i++ {
		if utf8.RuneStart(p[len(p)-i]) {
			if !utf8.FullRune(p[len(p)-i:]) {
				return p[:len(p)-i]
			}
			break
		}
	}
	return p
}

// shellQuote single-quotes s for a command shown to the model.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
