package extexec

import (
	"bytes"
	"sync"

	"exo/harness"
	"exo/harness/secrets"
)

// An agent resends its whole conversation on every model call, and the endpoint redacts each
// request before reading or forwarding it (see redactBody): 85 KiB took about 1 ms, a long
// conversation's megabytes ten times that, every step. A request holds much of what one before
// it held: the same start (the system prompt, the conversation so far) and, in claude-agent-acp's
// requests, the same end after the conversation (the tools, 70 KiB of 90). So a body is redacted
// as a stream in pieces, noting after each piece whether the stream held nothing back (up to such
// a point the redaction is settled whatever follows, and the scan from it depends only on the
// bytes after it). A new body takes the redaction of a recent one up to the last such point both
// start alike with, and from the first such point after which both end alike, when its own
// stream is settled there too; only the middle is scanned. Agents interleave side calls (a
// title, 4 KiB) with their main calls, so a few recent bodies are kept, not only the last.

// redactPiece is how much of a body the stream takes between the points noted.
const redactPiece = 8 << 10

// recentBodies is how many redacted bodies a session's endpoint keeps to reuse.
const recentBodies = 3

// settled is a point of a redacted body where nothing was held back: its offset in the body and
// in the redacted body.
type settled struct{ raw, red int }

// redaction is a body and its redaction, with its settled points in order.
type redaction struct {
	r      *secrets.Redactor
	raw    []byte
	red    []byte
	points []settled
}

// bodyRedactor redacts one session's request bodies, reusing recent ones' redactions.
type bodyRedactor struct {
	mu     sync.Mutex
	recent []*redaction // most recent first
}

// body redacts the sealed secrets in a model request before anything reads or forwards it:
// what an agent's own tools read (a workspace file, a command's output) reaches its request as
// it came, and the model must no more see a secret than exo's own executor lets it. (b or h nil:
// nothing to redact with.)
func (b *bodyRedactor) body(h *harness.Harness, body []byte) []byte {
	if b == nil || h == nil {
		return body
	}
	r := h.Redactor()
	if r == nil {
		return body
	}
	return b.redact(r, body)
}

// redact returns body with r's secrets redacted.
func (b *bodyRedactor) redact(r *secrets.Redactor, body []byte) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	at, from, tail := b.closest(r, body)
	var prev *redaction
	if at >= 0 {
		prev = b.recent[at]
	}
	var out []byte
	var points []settled
	if from > 0 {
		points = append(points, prev.points[:from]...)
		out = append(make([]byte, 0, len(body)+len(body)/8), prev.red[:points[len(points)-1].red]...)
	}
	start, stop := 0, len(body)
	if from > 0 {
		start = points[len(points)-1].raw
	}
	shift := 0
	if tail != nil {
		shift = len(body) - len(prev.raw)
		stop = tail.raw + shift
	}
	s := r.NewStream()
	out, points = scanPieces(s, body[:stop], start, out, points)
	if tail != nil && s.Pending() == 0 {
		// The stream is settled where the earlier body's was, and what follows is the same
		// bytes to the end: its redaction is the earlier one's from there.
		base := len(out) - tail.red
		if len(points) == 0 || points[len(points)-1].raw != stop {
			points = append(points, settled{stop, len(out)})
		}
		out = append(out, prev.red[tail.red:]...)
		for _, p := range prev.points {
			if p.raw > tail.raw {
				points = append(points, settled{p.raw + shift, p.red + base})
			}
		}
	} else {
		out, points = scanPieces(s, body, stop, out, points) // a secret ran across stop: go on
		out = append(out, s.Flush()...)
	}
	b.keep(at, &redaction{r: r, raw: body, red: out, points: points})
	return out
}

// scanPieces feeds body from start to its end to s in pieces, appending the settled text to out
// and noting the points where s holds nothing back.
func scanPieces(s *secrets.Stream, body []byte, start int, out []byte, points []settled) ([]byte, []settled) {
	for i := start; i < len(body); i += redactPiece {
		end := min(i+redactPiece, len(body))
		out = append(out, s.Next(body[i:end])...)
		if s.Pending() == 0 {
			points = append(points, settled{end, len(out)})
		}
	}
	return out, points
}

// closest returns the recent redaction (its index, -1 for none) that leaves the least of body to
// scan, with how many of its settled points body starts with (from) and the point from which
// both end alike (tail, nil for none). Only redactions with r count: a change of the secrets
// makes every earlier one stale.
func (b *bodyRedactor) closest(r *secrets.Redactor, body []byte) (at, from int, tail *settled) {
	at, best := -1, len(body)
	for i, e := range b.recent {
		if e.r != r {
			continue
		}
		same := commonPrefixLen(e.raw, body)
		n, start := 0, 0
		for n < len(e.points) && e.points[n].raw <= same {
			start = e.points[n].raw
			n++
		}
		t := e.sharedEnd(body, start)
		stop := len(body)
		if t != nil {
			stop = t.raw + len(body) - len(e.raw)
		}
		if left := stop - start; left < best { // only one that saves a scan: a side call must not take a main call's place
			at, best, from, tail = i, left, n, t
		}
	}
	return at, from, tail
}

// keep puts red first among the recent redactions, in place of the one at index at (which it
// supersedes) or of the oldest.
func (b *bodyRedactor) keep(at int, red *redaction) {
	if at < 0 {
		if len(b.recent) < recentBodies {
			b.recent = append(b.recent, nil)
		}
		at = len(b.recent) - 1
	}
	copy(b.recent[1:at+1], b.recent[:at])
	b.recent[0] = red
	// Drop what a change of the secrets left stale.
	kept := b.recent[:1]
	for _, e := range b.recent[1:] {
		if e.r == red.r {
			kept = append(kept, e)
		}
	}
	clear(b.recent[len(kept):])
	b.recent = kept
}

// sharedEnd returns the first settled point of e, at or after from in body, from which e's body
// and body hold the same bytes to their ends, or nil.
func (e *redaction) sharedEnd(body []byte, from int) *settled {
	suffix := commonSuffixLen(e.raw, body)
	shift := len(body) - len(e.raw)
	for i := range e.points {
		p := &e.points[i]
		if p.raw >= len(e.raw)-suffix && p.raw+shift >= from {
			return p
		}
	}
	return nil
}

// commonSuffixLen is how many bytes a and b end with alike.
func commonSuffixLen(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+64 <= n; i += 64 {
		if !bytes.Equal(a[len(a)-i-64:len(a)-i], b[len(b)-i-64:len(b)-i]) {
			break
		}
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// commonPrefixLen is how many bytes a and b start with alike.
func commonPrefixLen(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+64 <= n; i += 64 { // compare in blocks: bytes.Equal is vectorised
		if !bytes.Equal(a[i:i+64], b[i:i+64]) {
			break
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}
