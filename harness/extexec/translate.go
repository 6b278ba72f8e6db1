package extexec

import "net/http"

// translate serves a Messages call through exo's own provider for a registered model of another
// wire format (OpenAI, the scripted model…).
func (e *Endpoint) translate(w http.ResponseWriter, r *http.Request, body []byte) {
	e.log.failed("bad_request", "exo: model "+e.up.Spec.Name+" ("+e.up.Spec.Provider+") cannot serve this agent yet", false, 0)
	writeAPIError(w, http.StatusBadRequest, "invalid_request_error", "exo: model "+e.up.Spec.Name+" is not an Anthropic model")
}
