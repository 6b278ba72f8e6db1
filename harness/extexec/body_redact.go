package extexec

import (
	"bytes"
	"sync"

	"exo/harness"
	"exo/harness/secrets"
)

// An agent resends its whole conversation on every model call, and the endpoint redacts each
// request before reading or forwarding it (see redactBody): 85 KiB took about 1 ms, a long
// conversation's megabytes ten times that, every step. A request starts with what the one before
// it held (the system prompt, the tools, the conversation so far), so the redaction of that part
// is taken from the one before: the previous body is redacted as a stream in pieces, noting after
// each piece whether the stream held nothing back — up to such a point the redaction is settled
// whatever follows — and a new body that starts with the previous one up to such a point is
// redacted from there on only.

// redactPiece is how much of a body the stream takes between the points noted.
const redactPiece = 8 << 10

// settled is a point of a redacted body where nothing was held back: its offset in the body and
// in the redacted body.
type settled struct{ raw, red int }

// bodyRedactor redacts one session's request bodies, reusing the last one's redaction.
type bodyRedactor struct {
	mu     sync.Mutex
	r      *secrets.Redactor
	raw    []byte
	red    []byte
	points []settled
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
	var out []byte
	var points []settled
	from := 0
	if r == b.r {
		same := commonPrefixLen(b.raw, body)
		for _, p := range b.points {
			if p.raw > same {
				break
			}
			from = p.raw
			points = append(points, p)
		}
		if len(points) > 0 {
			out = append(make([]byte, 0, len(body)+len(body)/8), b.red[:points[len(points)-1].red]...)
		}
	}
	s := r.NewStream()
	for i := from; i < len(body); i += redactPiece {
		end := min(i+redactPiece, len(body))
		out = append(out, s.Next(body[i:end])...)
		if s.Pending() == 0 {
			points = append(points, settled{end, len(out)})
		}
	}
	out = append(out, s.Flush()...)
	b.r, b.raw, b.red, b.points = r, body, out, points
	return out
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
