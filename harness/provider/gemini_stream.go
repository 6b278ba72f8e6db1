package provider

import (
	"encoding/json"
	"fmt"
	"strings"
)

// geminiState folds the chunks of a streamGenerateContent event stream. Each chunk is a
// GenerateContentResponse holding the new parts of candidate 0; usage comes with every chunk or
// only the last, and the stream has no closing event: it is complete once a candidate carried
// a finishReason (or the prompt was blocked).
type geminiState struct {
	acc      *accumulator
	model    string
	usage    Usage
	finish   string
	message  string
	calls    int64
	thought  *reasoningAcc
	thoughts int64
	respID   string
	textSig  string
	callSigs []Reasoning
	blocked  *Error
	ratings  json.RawMessage
}

// newGeminiState starts the TTFT clock.
func newGeminiState(onDelta func(Delta), model string) *geminiState {
	return &geminiState{acc: newAccumulator(onDelta), model: model}
}

// geminiUsage is a chunk's usageMetadata.
type geminiUsage struct {
	PromptTokenCount        acctCount `json:"promptTokenCount"`
	CandidatesTokenCount    acctCount `json:"candidatesTokenCount"`
	ThoughtsTokenCount      acctCount `json:"thoughtsTokenCount"`
	CachedContentTokenCount acctCount `json:"cachedContentTokenCount"`
	ToolUsePromptTokenCount acctCount `json:"toolUsePromptTokenCount"`
}

// geminiPart is one part of a candidate's content; the kinds exo does not use (code execution,
// inline or file data) are kept as received to be recorded as skipped.
type geminiPart struct {
	Text             *string `json:"text"`
	Thought          bool    `json:"thought"`
	ThoughtSignature string  `json:"thoughtSignature"`
	FunctionCall     *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	ExecutableCode      json.RawMessage `json:"executableCode"`
	CodeExecutionResult json.RawMessage `json:"codeExecutionResult"`
	InlineData          json.RawMessage `json:"inlineData"`
	FileData            json.RawMessage `json:"fileData"`
}

// geminiChunk is the part of a GenerateContentResponse (or an error object) that exo reads.
type geminiChunk struct {
	Candidates []struct {
		Content struct {
			Parts []geminiPart `json:"parts"`
		} `json:"content"`
		FinishReason  string          `json:"finishReason"`
		FinishMessage string          `json:"finishMessage"`
		Index         int             `json:"index"`
		SafetyRatings json.RawMessage `json:"safetyRatings"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason        string          `json:"blockReason"`
		BlockReasonMessage string          `json:"blockReasonMessage"`
		SafetyRatings      json.RawMessage `json:"safetyRatings"`
	} `json:"promptFeedback"`
	UsageMetadata *geminiUsage    `json:"usageMetadata"`
	ModelVersion  string          `json:"modelVersion"`
	ResponseID    string          `json:"responseId"`
	Error         json.RawMessage `json:"error"`
}

// event decodes and applies one chunk. It never ends the stream itself: usage may follow the
// chunk with the finishReason.
func (s *geminiState) event(data []byte) (bool, *Error) {
	var ch geminiChunk
	if err := decodeEvent(data, &ch); err != nil {
		return false, err
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		ae, _ := parseAPIError(data)
		e := streamError(ae, ErrServer)
		if d := ae.RetryDelay; d > 0 && e.RetryAfter == 0 {
			e.RetryAfter = d
		}
		return false, e
	}
	s.model = firstNonEmpty(ch.ModelVersion, s.model)
	s.respID = firstNonEmpty(s.respID, ch.ResponseID)
	if ch.UsageMetadata != nil {
		s.setUsage(*ch.UsageMetadata)
	}
	if pf := ch.PromptFeedback; pf != nil && pf.BlockReason != "" {
		s.blocked = &Error{Kind: ErrBlocked, Type: pf.BlockReason,
			Detail: trim(firstNonEmpty(pf.BlockReasonMessage, "the prompt was blocked ("+pf.BlockReason+")"))}
		s.finish = pf.BlockReason
		return false, nil
	}
	for _, c := range ch.Candidates {
		if c.Index != 0 {
			continue
		}
		for i := range c.Content.Parts {
			if e := s.part(&c.Content.Parts[i]); e != nil {
				return false, e
			}
		}
		if c.FinishReason != "" {
			s.finish, s.message = c.FinishReason, c.FinishMessage
			if geminiBlocked(c.FinishReason) && len(c.SafetyRatings) > 0 {
				s.ratings = c.SafetyRatings
				s.acc.skip("safetyRatings", c.SafetyRatings)
			}
		}
	}
	return false, nil
}

// complete reports whether the stream said it was finished.
func (s *geminiState) complete() bool { return s.finish != "" }

// setUsage records the latest usage: Input counts the cached prompt tokens too, Output the
// thoughts (billed as output).
func (s *geminiState) setUsage(u geminiUsage) {
	s.usage.Input = int64(u.PromptTokenCount + u.ToolUsePromptTokenCount)
	s.usage.Cached = int64(u.CachedContentTokenCount)
	s.usage.Output = int64(u.CandidatesTokenCount + u.ThoughtsTokenCount)
	s.usage.Reasoning = int64(u.ThoughtsTokenCount)
}

// part applies one part: a thought (summary text, signature), answer text, a function call
// (whole, with its signature), or a kind exo skips.
func (s *geminiState) part(p *geminiPart) *Error {
	switch {
	case p.Thought:
		if s.thought == nil || s.thought.part.Signature != "" {
			s.thoughts++
			s.thought = s.acc.startReasoning(s.thoughts, Reasoning{Format: ReasoningGemini, Type: "thought"})
		}
		if p.Text != nil {
			s.acc.addReasoningText(s.thought, *p.Text)
		}
		if p.ThoughtSignature != "" {
			s.thought.part.Signature = p.ThoughtSignature
		}
		return nil
	case p.FunctionCall != nil:
		s.thought = nil
		return s.call(p)
	case p.Text != nil:
		s.thought = nil
		s.acc.addText(*p.Text)
		if p.ThoughtSignature != "" {
			s.textSig = p.ThoughtSignature
		}
		return nil
	}
	s.thought = nil
	for _, k := range []struct {
		name string
		raw  json.RawMessage
	}{{"executableCode", p.ExecutableCode}, {"codeExecutionResult", p.CodeExecutionResult},
		{"inlineData", p.InlineData}, {"fileData", p.FileData}} {
		if len(k.raw) > 0 {
			s.acc.skip(k.name, k.raw)
			return nil
		}
	}
	if p.ThoughtSignature != "" { // a part holding only a signature
		s.textSig = p.ThoughtSignature
	}
	return nil
}

// call announces a function call with its arguments, which the API sends whole. A call
// without an id (Gemini 2.5) gets one made up from the response id.
func (s *geminiState) call(p *geminiPart) *Error {
	fc := p.FunctionCall
	if fc.Name == "" {
		return &Error{Kind: ErrMalformedStream, Detail: "functionCall without a name"}
	}
	key := s.calls
	s.calls++
	id := fc.ID
	if id == "" {
		id = fmt.Sprintf("%s%s-%d", geminiCallPrefix, firstNonEmpty(s.respID, "call"), key)
	}
	s.acc.startCall(key, id, fc.Name)
	args := string(fc.Args)
	if args == "" || args == "null" {
		args = "{}"
	}
	s.acc.addArgs(key, args)
	if p.ThoughtSignature != "" {
		s.callSigs = append(s.callSigs, Reasoning{Format: ReasoningGemini, Type: "function_call", ID: id, Signature: p.ThoughtSignature})
	}
	return nil
}

// ending is the failure a finishReason other than STOP and MAX_TOKENS means, named: a
// prompt or answer the filters blocked (ErrBlocked, with the blocked categories; what came
// before the block stays with the error), or a malformed or unexpected call and other ends
// (ErrServer: sending again may succeed). Nil for a normal end.
func (s *geminiState) ending() *Error {
	switch {
	case s.blocked != nil:
		return s.blocked
	case s.finish == "" || s.finish == "STOP" || s.finish == "MAX_TOKENS":
		return nil
	case geminiBlocked(s.finish):
		detail := "the answer was stopped by the provider's filters"
		if cats := blockedCategories(s.ratings); cats != "" {
			detail += " (" + cats + ")"
		}
		return &Error{Kind: ErrBlocked, Type: s.finish, Detail: detail}
	}
	return &Error{Kind: ErrServer, Type: s.finish,
		Detail: trim(firstNonEmpty(s.message, "the answer ended with finishReason "+s.finish))}
}

// blockedCategories names the categories of the ratings marked blocked.
func blockedCategories(raw json.RawMessage) string {
	var rs []struct {
		Category string `json:"category"`
		Blocked  bool   `json:"blocked"`
	}
	_ = json.Unmarshal(raw, &rs)
	var out []string
	for _, r := range rs {
		if r.Blocked {
			out = append(out, r.Category)
		}
	}
	return strings.Join(out, ", ")
}

// response assembles the answer: the stop reason from the finishReason, the signatures after
// the thoughts. A blocked answer keeps the text that came before the block but not its calls.
func (s *geminiState) response() Response {
	stop := geminiStop(s.finish)
	r := s.acc.response(s.model, s.usage, stop)
	if geminiBlocked(s.finish) {
		r.ToolCalls, r.StopReason = nil, stop
	}
	if s.textSig != "" {
		r.Reasoning = append(r.Reasoning, Reasoning{Format: ReasoningGemini, Type: "text", Signature: s.textSig})
	}
	r.Reasoning = append(r.Reasoning, s.callSigs...)
	if s.message != "" && s.finish != "STOP" {
		r.Skipped = append(r.Skipped, Skipped{Type: "finishMessage", Count: 1, Content: s.message})
	}
	return r
}

// geminiStop maps a finishReason: STOP and MAX_TOKENS to exo's own, the others (which fail
// the call, see ending) to their names in lower case.
func geminiStop(r string) StopReason {
	switch r {
	case "STOP", "":
		return StopEndTurn
	case "MAX_TOKENS":
		return StopMaxTokens
	}
	return StopReason(strings.ToLower(r))
}

// geminiBlocked reports whether a finishReason means the answer was stopped by a filter.
func geminiBlocked(r string) bool {
	switch r {
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE",
		"IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		return true
	}
	return false
}
