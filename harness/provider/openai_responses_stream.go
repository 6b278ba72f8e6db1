package provider

// responsesState folds Responses stream events.
type responsesState struct {
	acc   *accumulator
	model string
	usage Usage
	stop  StopReason
	done  bool
}

// responsesEvent is the part of a Responses stream event that exo reads.
type responsesEvent struct {
	Type        string `json:"type"`
	OutputIndex int64  `json:"output_index"`
	Delta       string `json:"delta"`
	Message     string `json:"message"`
	Code        string `json:"code"`
	Item        *struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Name   string `json:"name"`
	} `json:"item"`
	Response *responsesBody `json:"response"`
}

// responsesBody is the response object carried by lifecycle events.
type responsesBody struct {
	Model  string `json:"model"`
	Status string `json:"status"`
	Error  *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Usage *struct {
		InputTokens        int64 `json:"input_tokens"`
		OutputTokens       int64 `json:"output_tokens"`
		InputTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"input_tokens_details"`
	} `json:"usage"`
}

// event decodes and applies one SSE event.
func (s *responsesState) event(data []byte) (bool, *Error) {
	var ev responsesEvent
	if err := decodeEvent(data, &ev); err != nil {
		return false, err
	}
	return s.done, s.handle(&ev)
}

// handle applies one event.
func (s *responsesState) handle(ev *responsesEvent) *Error {
	switch ev.Type {
	case "response.created", "response.in_progress":
		if ev.Response != nil {
			s.model = firstNonEmpty(ev.Response.Model, s.model)
		}
	case "response.output_item.added":
		if ev.Item != nil && ev.Item.Type == "function_call" {
			s.acc.startCall(ev.OutputIndex, ev.Item.CallID, ev.Item.Name)
		}
	case "response.output_text.delta", "response.refusal.delta":
		s.acc.addText(ev.Delta)
	case "response.function_call_arguments.delta":
		if !s.acc.addArgs(ev.OutputIndex, ev.Delta) {
			return &Error{Kind: ErrMalformedStream, Detail: "arguments for an unknown function call"}
		}
	case "response.completed", "response.incomplete":
		return s.finish(ev.Response)
	case "response.failed":
		return s.failed(ev.Response)
	case "error":
		return &Error{Kind: codeKind(ev.Code), Detail: trim(firstNonEmpty(ev.Message, ev.Code, "error event"))}
	}
	return nil
}

// finish records the final response's usage and status.
func (s *responsesState) finish(r *responsesBody) *Error {
	if r == nil {
		return &Error{Kind: ErrMalformedStream, Detail: "final event without a response"}
	}
	s.done = true
	s.model = firstNonEmpty(r.Model, s.model)
	if u := r.Usage; u != nil {
		s.usage = Usage{Input: u.InputTokens, Output: u.OutputTokens, Cached: u.InputTokensDetails.CachedTokens}
	}
	s.stop = StopEndTurn
	if r.Status == "incomplete" {
		reason := "incomplete"
		if r.IncompleteDetails != nil {
			reason = firstNonEmpty(r.IncompleteDetails.Reason, reason)
		}
		s.stop = StopReason(reason)
		if reason == "max_output_tokens" {
			s.stop = StopMaxTokens
		}
	}
	return nil
}

// failed turns a response.failed event into an error.
func (s *responsesState) failed(r *responsesBody) *Error {
	if r == nil || r.Error == nil {
		return &Error{Kind: ErrServer, Detail: "response failed"}
	}
	return &Error{Kind: codeKind(r.Error.Code), Detail: trim(firstNonEmpty(r.Error.Message, r.Error.Code))}
}

// codeKind maps an OpenAI error code met inside a stream to an error kind.
func codeKind(code string) error {
	switch code {
	case "rate_limit_exceeded":
		return ErrRateLimited
	case "invalid_prompt", "invalid_request_error", "context_length_exceeded":
		return ErrBadRequest
	}
	return ErrServer
}
