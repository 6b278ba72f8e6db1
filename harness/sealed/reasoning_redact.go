package sealed

import "exo/harness/provider"

// RedactReasoning redacts secrets from the readable reasoning of a model's answer. A part whose
// text had to change can no longer be verified by the API that signed it, so its signature and
// encrypted content are dropped and it is marked redacted: APIs that verify reasoning do not
// get it back. No parts gives nil.
func (sc *Secrets) RedactReasoning(parts []provider.Reasoning) []provider.Reasoning {
	out := make([]provider.Reasoning, 0, len(parts))
	for _, p := range parts {
		r := p
		r.Text = sc.Redact(p.Text)
		changed := r.Text != p.Text
		r.Summary = nil
		for _, s := range p.Summary {
			rs := sc.Redact(s)
			changed = changed || rs != s
			r.Summary = append(r.Summary, rs)
		}
		if changed || sc.Redact(p.Data) != p.Data || sc.Redact(p.Signature) != p.Signature {
			r.Signature, r.Data, r.Redacted = "", "", true
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
