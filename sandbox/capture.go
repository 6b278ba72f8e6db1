package sandbox

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// capture keeps model text inline up to a limit as head and tail, and beyond the limit
// streams everything to an artifact; memory stays bounded by the limit.
type capture struct {
	limit    int
	name     string
	sink     ArtifactSink
	buf      []byte // everything, until the limit is exceeded; then the head
	tail     ring
	total    int64
	art      ArtifactWriter
	artErr   error
	overflow bool
}

// newCapture returns a capture keeping limit bytes inline.
func newCapture(limit int, sink ArtifactSink, name string) *capture {
	return &capture{limit: limit, sink: sink, name: name, buf: make([]byte, 0, min(limit, 4096))}
}

// Write records sanitized model text; it never fails so output keeps flowing.
func (c *capture) Write(p []byte) (int, error) {
	written := len(p)
	c.total += int64(len(p))
	if !c.overflow && len(c.buf)+len(p) <= c.limit {
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	if !c.overflow {
		// Fill the head from p first: a chunk larger than what is left can arrive before the
		// head is full (a pipe read of 64 KiB after a few bytes).
		if n := min(c.limit/2-len(c.buf), len(p)); n > 0 {
			c.buf, p = append(c.buf, p[:n]...), p[n:]
		}
		c.spill()
	}
	c.toArtifact(p)
	c.tail.write(p)
	return written, nil
}

// spill switches to head+tail mode: the artifact gets what was kept so far.
func (c *capture) spill() {
	c.overflow = true
	half := c.limit / 2
	c.tail = newRing(c.limit - half)
	if c.sink != nil {
		c.art, c.artErr = c.sink.NewArtifact(c.name)
	}
	c.toArtifact(c.buf)
	c.tail.write(c.buf[half:])
	c.buf = c.buf[:half]
}

// toArtifact streams p to the artifact, remembering the first error.
func (c *capture) toArtifact(p []byte) {
	if c.art == nil || c.artErr != nil {
		return
	}
	if _, err := c.art.Write(p); err != nil {
		c.artErr = fmt.Errorf("write output artifact: %w", err)
	}
}

// finish returns the inline text and the artifact reference, if any.
func (c *capture) finish() (text, ref string, err error) {
	if !c.overflow {
		return string(c.buf), "", nil
	}
	if c.art != nil {
		if c.artErr == nil {
			ref, c.artErr = c.art.Commit()
		} else {
			c.art.Abort()
		}
	}
	return c.compose(ref), ref, c.artErr
}

// snapshot returns the text so far without finishing.
func (c *capture) snapshot() string {
	if !c.overflow {
		return string(c.buf)
	}
	return c.compose("")
}

// compose joins head and tail around a marker saying what was cut.
func (c *capture) compose(ref string) string {
	head := trimRuneEnd(c.buf)
	tail := trimRuneStart(c.tail.bytes())
	cut := c.total - int64(len(head)) - int64(len(tail))
	where := "not kept"
	switch {
	case ref != "":
		where = "full output in artifact " + ref
	case c.art != nil && c.artErr == nil:
		where = "full output streaming to an artifact"
	case c.artErr != nil:
		where = "artifact failed: " + c.artErr.Error()
	}
	var b strings.Builder
	b.Grow(len(head) + len(tail) + 100)
	b.Write(head)
	fmt.Fprintf(&b, "\n[… %d bytes cut of %d; %s …]\n", cut, c.total, where)
	b.Write(tail)
	return b.String()
}

// trimRuneEnd drops an incomplete UTF-8 sequence at the end of p.
func trimRuneEnd(p []byte) []byte {
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

// trimRuneStart drops continuation bytes at the start of p.
func trimRuneStart(p []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(p); i++ {
		if utf8.RuneStart(p[i]) {
			return p[i:]
		}
	}
	return p
}

// ring keeps the last n bytes written.
type ring struct {
	data []byte
	pos  int
	full bool
}

// newRing returns a ring of n bytes.
func newRing(n int) ring { return ring{data: make([]byte, n)} }

// write appends p, overwriting the oldest bytes.
func (r *ring) write(p []byte) {
	n := len(r.data)
	if n == 0 {
		return
	}
	if len(p) >= n {
		copy(r.data, p[len(p)-n:])
		r.pos, r.full = 0, true
		return
	}
	k := copy(r.data[r.pos:], p)
	if k < len(p) {
		copy(r.data, p[k:])
		r.full = true
	}
	r.pos = (r.pos + len(p)) % n
	if r.pos == 0 && len(p) > 0 {
		r.full = true
	}
}

// bytes returns the kept bytes in order.
func (r *ring) bytes() []byte {
	if !r.full {
		return append([]byte(nil), r.data[:r.pos]...)
	}
	return append(append([]byte(nil), r.data[r.pos:]...), r.data[:r.pos]...)
}
