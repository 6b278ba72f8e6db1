package provider

// anthropicState folds Messages stream events.
type anthropicState struct {
	acc   *accumulator
	model string
	usage Usage
	stop  StopReason
	done  bool
}

// anthropicUsage is the usage object of message_start and message_delta.
type anthropicUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

// anthropicEvent is the part of a Messages stream event that exo reads.
type anthropicEvent struct {
	Type    string `json:"type"`
	Index   int64  `json:"index"`
	Message *struct {
		Model string         `json:"model"`
		Usage anthropicUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Name string `json:"name"`
		Text string `json:"text"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anthropicUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// event decodes and applies one SSE event.
func (s *anthropicState) event(data []byte) (bool, *Error) {
	var ev anthropicEvent
	if err := decodeEvent(data, &ev); err != nil {
		return false, err
	}
	return s.done, s.handle(&ev)
}

// handle applies one event.
func (s *anthropicState) handle(ev *anthropicEvent) *Error {
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			s.model = firstNonEmpty(ev.Message.Model, s.model)
			s.setUsage(ev.Message.Usage)
		}
	case "content_block_start":
		s.blockStart(ev)
	case "content_block_delta":
		return s.blockDelta(ev)
	case "message_delta":
		s.messageDelta(ev)
	case "message_stop":
		s.done = true
	case "error":
		return anthropicStreamError(ev)
	}
	return nil
}

// setUsage records usage; Input counts cache reads and writes too.
func (s *anthropicState) setUsage(u anthropicUsage) {
	s.usage.Output = max(s.usage.Output, u.OutputTokens)
	if in := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens; in > 0 {
		s.usage.Input, s.usage.Cached, s.usage.CacheWrite = in, u.CacheReadInputTokens, u.CacheCreationInputTokens
	}
}

// blockStart opens a text or tool_use block.
func (s *anthropicState) blockStart(ev *anthropicEvent) {
	b := ev.ContentBlock
	if b == nil {
		return
	}
	switch b.Type {
	case "tool_use":
		s.acc.startCall(ev.Index, b.ID, b.Name)
	case "text":
		s.acc.addText(b.Text)
	}
}

// blockDelta applies a text or tool-input piece.
func (s *anthropicState) blockDelta(ev *anthropicEvent) *Error {
	if ev.Delta == nil {
		return &Error{Kind: ErrMalformedStream, Detail: "content_block_delta without a delta"}
	}
	switch ev.Delta.Type {
	case "text_delta":
		s.acc.addText(ev.Delta.Text)
	case "input_json_delta":
		if !s.acc.addArgs(ev.Index, ev.Delta.PartialJSON) {
			return &Error{Kind: ErrMalformedStream, Detail: "input_json_delta for an unknown content block"}
		}
	}
	return nil
}

// messageDelta records the stop reason and the final usage counts.
func (s *anthropicState) messageDelta(ev *anthropicEvent) {
	if ev.Delta != nil && ev.Delta.StopReason != "" {
		s.stop = StopReason(ev.Delta.StopReason)
	}
	if ev.Usage != nil {
		s.setUsage(*ev.Usage)
	}
}

// anthropicStreamError maps an error event inside a stream.
func anthropicStreamError(ev *anthropicEvent) *Error {
	if ev.Error == nil {
		return &Error{Kind: ErrServer, Detail: "error event"}
	}
	kind := ErrServer
	switch ev.Error.Type {
	case "overloaded_error":
		kind = ErrOverloaded
	case "rate_limit_error":
		kind = ErrRateLimited
	case "invalid_request_error":
		kind = ErrBadRequest
	case "authentication_error", "permission_error":
		kind = ErrAuth
	}
	return &Error{Kind: kind, Detail: trim(firstNonEmpty(ev.Error.Message, ev.Error.Type))}
}
