package extexec

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
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
