package extexec

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"slices"
	"testing"

	"exo/harness/secrets"
)

// TestBodyRedactionReusesOnlyWhatIsSettled: a run of request bodies, each the one before cut at a
// random point (often right inside a secret or at a piece's edge) and continued with new text
// holding secrets in several forms, is redacted exactly as each body redacted whole; a change of
// the secrets sealed is not served from what was redacted before.
func TestBodyRedactionReusesOnlyWhatIsSettled(t *testing.T) {
	vals := map[string][]byte{"a": []byte("sk-ant-body-0123456789abcdef"), "b": []byte("other-secret-value-42")}
	forms := [][]byte{vals["a"], vals["b"], []byte(base64.StdEncoding.EncodeToString(vals["a"])), vals["a"][:12], []byte("…" + string(vals["b"][4:]))}
	rng := rand.New(rand.NewPCG(1, 2))
	filler := func(n int) []byte {
		out := make([]byte, n)
		for i := range out {
			out[i] = "abcdefghijklmnopqrstuvwxyz0123456789-{}\":, s"[rng.IntN(44)]
		}
		return out
	}
	r1 := secrets.NewRedactor(vals)
	var b bodyRedactor
	body := append([]byte("{"), filler(3*redactPiece)...)
	for step := 0; step < 300; step++ {
		cut := 1 + rng.IntN(len(body))
		if step%3 == 0 { // right before, inside or after a secret near a piece's edge
			if i := bytes.Index(body[len(body)/2:], vals["a"]); i >= 0 {
				cut = len(body)/2 + i + rng.IntN(len(vals["a"])+1)
			}
		}
		next := append([]byte(nil), body[:cut]...)
		for k := 0; k < 1+rng.IntN(4); k++ {
			next = append(next, filler(rng.IntN(2*redactPiece))...)
			next = append(next, forms[rng.IntN(len(forms))]...)
		}
		if len(next) > 12*redactPiece {
			next = append([]byte("{"), next[len(next)-6*redactPiece:]...)
		}
		body = next
		r := r1
		if step == 150 { // a secret the part redacted before holds is sealed meanwhile: a new redactor
			b.redact(r, body)
			vals["c"] = append([]byte(nil), body[10:34]...)
			r1 = secrets.NewRedactor(vals)
			r = r1
			body = append(body, 'x')
		}
		got, want := b.redact(r, body), r.Bytes(body)
		if !bytes.Equal(got, want) {
			i := commonPrefixLen(got, want)
			t.Fatalf("step %d (cut %d of %d): differs at %d: %q vs %q", step, cut, len(body), i, got[max(0, i-40):min(len(got), i+40)], want[max(0, i-40):min(len(want), i+40)])
		}
	}
}

// TestBodyRedactionReusesTheSharedEnd: bodies changed in the middle (as an agent's request
// changes its conversation and keeps the tools after it), the change often right inside or next to
// a secret, with secrets in the part kept, are redacted exactly as each body redacted whole.
func TestBodyRedactionReusesTheSharedEnd(t *testing.T) {
	vals := map[string][]byte{"a": []byte("sk-ant-body-0123456789abcdef"), "b": []byte("other-secret-value-42")}
	forms := [][]byte{vals["a"], vals["b"], []byte(base64.StdEncoding.EncodeToString(vals["a"])), vals["a"][:12], []byte("…" + string(vals["b"][4:])), []byte(string(vals["a"][10:]) + "…]\n")}
	rng := rand.New(rand.NewPCG(3, 4))
	filler := func(n int) []byte {
		out := make([]byte, n)
		for i := range out {
			out[i] = "abcdefghijklmnopqrstuvwxyz0123456789-{}\":, s"[rng.IntN(44)]
		}
		return out
	}
	r := secrets.NewRedactor(vals)
	var b bodyRedactor
	body := []byte("{")
	for k := 0; k < 8; k++ {
		body = append(append(body, filler(rng.IntN(redactPiece))...), forms[rng.IntN(len(forms))]...)
	}
	reused := 0
	for step := 0; step < 400; step++ {
		cut := rng.IntN(len(body) + 1)
		keep := cut + rng.IntN(len(body)-cut+1) // the kept end starts here
		if step%3 == 0 {                        // at, inside or after a secret
			if i := bytes.Index(body[keep:], vals["a"]); i >= 0 {
				keep += i + rng.IntN(len(vals["a"])+1)
			}
		}
		next := append([]byte(nil), body[:cut]...)
		for k := 0; k < rng.IntN(3); k++ {
			next = append(next, filler(rng.IntN(redactPiece))...)
			next = append(next, forms[rng.IntN(len(forms))]...)
		}
		next = append(next, body[keep:]...)
		if len(next) > 16*redactPiece {
			next = append([]byte("{"), next[len(next)-8*redactPiece:]...)
		}
		if len(next) == 0 {
			next = []byte("{")
		}
		body = next
		if step%5 == 0 { // a side call between two main calls, as an agent's title call
			side := append([]byte(`{"title":`), filler(rng.IntN(redactPiece))...)
			side = append(side, forms[rng.IntN(len(forms))]...)
			var main *redaction
			if len(b.recent) > 0 {
				main = b.recent[0]
			}
			if got, want := b.redact(r, side), r.Bytes(side); !bytes.Equal(got, want) {
				t.Fatalf("step %d: a side call redacted wrong", step)
			}
			if main != nil && !slices.Contains(b.recent, main) {
				t.Fatalf("step %d: a side call that shares nothing with the main call took its place", step)
			}
		}
		for _, e := range b.recent {
			if e.sharedEnd(body, 0) != nil && len(e.raw) > redactPiece {
				reused++
				break
			}
		}
		got, want := b.redact(r, body), r.Bytes(body)
		if !bytes.Equal(got, want) {
			i := commonPrefixLen(got, want)
			t.Fatalf("step %d (len %d): differs at %d: %q vs %q", step, len(body), i, got[max(0, i-40):min(len(got), i+40)], want[max(0, i-40):min(len(want), i+40)])
		}
	}
	if reused < 100 {
		t.Fatalf("the shared end was reused in %d of 400 steps: the test does not exercise it", reused)
	}
}
