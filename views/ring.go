package views

// lineRing is a bounded ring of lines: pushing beyond its capacity drops
// the oldest line, so memory stays bounded however much output streams.
type lineRing struct {
	buf   []string
	start int
	n     int
}

// newLineRing returns a ring holding at most capacity lines.
func newLineRing(capacity int) *lineRing {
	return &lineRing{buf: make([]string, max(capacity, 1))}
}

// Len returns the number of lines held.
func (r *lineRing) Len() int { return r.n }

// At returns line i, 0 being the oldest held.
func (r *lineRing) At(i int) string { return r.buf[(r.start+i)%len(r.buf)] }

// Push appends a line, dropping the oldest when full.
func (r *lineRing) Push(s string) {
	if r.n < len(r.buf) {
		r.buf[(r.start+r.n)%len(r.buf)] = s
		r.n++
		return
	}
	r.buf[r.start] = s
	r.start = (r.start + 1) % len(r.buf)
}

// SetLast replaces the newest line.
func (r *lineRing) SetLast(s string) {
	if r.n == 0 {
		r.Push(s)
		return
	}
	r.buf[(r.start+r.n-1)%len(r.buf)] = s
}

// Reset empties the ring.
func (r *lineRing) Reset() { r.start, r.n = 0, 0 }
