package provider

// GeminiFold folds a Gemini API answer that exo did not ask for itself (an agent's call passed
// through exo's model endpoint) with the decoder of the gemini provider: chunks of a
// streamGenerateContent stream, or a whole generateContent answer.
type GeminiFold struct {
	s      *geminiState
	origin string
	err    *Error
}

// NewGeminiFold starts folding an answer of model from the Gemini API at baseURL; onDelta, when
// not nil, is given each piece of the answer as it is decoded (text, reasoning, tool calls), as
// the gemini provider streams its own answers.
func NewGeminiFold(baseURL, model string, onDelta func(Delta)) *GeminiFold {
	return &GeminiFold{s: newGeminiState(onDelta, model), origin: newEndpoint(baseURL, geminiHost, model).origin}
}

// Event applies one chunk (an event's data, or a whole answer); an error object or bad JSON
// ends the answer as failed.
func (g *GeminiFold) Event(data []byte) {
	if g.err != nil {
		return
	}
	if _, e := g.s.event(data); e != nil {
		g.err = e
	}
}

// Complete reports whether the answer said it was finished.
func (g *GeminiFold) Complete() bool { return g.err == nil && g.s.complete() }

// Result is the folded answer, or the failure it ended in (an in-stream error, a blocked
// prompt or answer, a finishReason other than STOP and MAX_TOKENS) with its kind.
func (g *GeminiFold) Result() (Response, *Error) {
	e := g.err
	if e == nil {
		e = g.s.ending()
	}
	if e != nil {
		e.Provider = KindGemini
	}
	r := g.s.response()
	stampOrigin(r.Reasoning, g.origin)
	return r, e
}
