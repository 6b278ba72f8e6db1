package extexec

import (
	"net/http"
	"strings"
	"time"
)

// responses serves POST /v1/responses (the OpenAI Responses API) the way messages serves the
// Messages API.
func (e *Endpoint) responses(w http.ResponseWriter, r *http.Request) {
	body, doc, arrived, ok := readCall(e.log.h, &e.bodies, w, r)
	if !ok {
		return
	}
	if doc.model() != e.up.Spec.ModelID || doc.models > 1 {
		body = withModel(body, e.up.Spec.ModelID)
	}
	c := e.log.begin(responsesShape(doc), doc.count("input"))
	if c.refusal != "" { // not retried by the agent: a 400 it shows and ends the turn on
		writeOpenAIError(w, http.StatusBadRequest, c.refusal)
		return
	}
	if !e.up.passes(WireResponses) {
		e.translateResponses(w, r, c, body, arrived)
		return
	}
	url := e.up.BaseURL + strings.TrimPrefix(r.URL.RequestURI(), "/v1")
	e.forward(w, r, c, body, arrived, url, func(h http.Header) {
		if e.up.key != "" {
			h.Set("Authorization", "Bearer "+e.up.key)
		}
	}, newResponsesTap(time.Now()))
}

// outcome says how a Responses stream ended.
func (t *responsesTap) outcome() (bool, string, string) {
	if t.errMsg != "" {
		return false, errKind(t.errKind), t.errMsg
	}
	return t.done, "", ""
}

// whole folds a non-streamed Responses answer.
func (t *responsesTap) whole(raw []byte) {
	t.event([]byte(`{"type":"response.completed","response":` + string(raw) + `}`))
	t.firstToken()
}
