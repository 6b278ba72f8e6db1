package extexec

import (
	"net/http"
	"time"

	"exo/harness/provider"
)

// messages serves POST /v1/messages (the Anthropic Messages API): it records the call, forwards
// it (or serves it through exo's provider) and records the answer.
func (e *Endpoint) messages(w http.ResponseWriter, r *http.Request) {
	body, doc, arrived, ok := readCall(e.log.h, &e.bodies, w, r)
	if !ok {
		return
	}
	if doc.model() != e.up.Spec.ModelID || doc.models > 1 {
		body = withModel(body, e.up.Spec.ModelID)
	}
	c := e.log.begin(anthropicShape(doc), doc.count("messages"))
	if c.refusal != "" { // not retried by the agent: a 400 it shows and ends the turn on
		writeAPIError(w, http.StatusBadRequest, "invalid_request_error", c.refusal)
		return
	}
	if !e.up.passes(provider.KindAnthropic) {
		e.translate(w, r, c, body, arrived)
		return
	}
	e.forward(w, r, c, body, arrived, e.up.BaseURL+r.URL.RequestURI(), func(h http.Header) {
		if e.up.key != "" {
			h.Set("X-Api-Key", e.up.key)
		}
	}, newAnthropicTap(time.Now()))
}

// outcome says how a Messages stream ended.
func (t *anthropicTap) outcome() (bool, string, string) {
	if t.errMsg != "" {
		return false, errKind(t.errKind), t.errMsg
	}
	return t.done, "", ""
}

// whole folds a non-streamed Messages answer.
func (t *anthropicTap) whole(raw []byte) { t.message(raw) }
