package provider

// anthropicState folds Messages stream events.
type anthropicState struct {
	acc   *accumulator
	model string
	usage Usage
	stop  StopReason
	done  bool
	// other marks the content blocks of types exo skips.
	other map[int64]bool
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
		Type      string `json:"type"`
		ID        string `json:"id"`
		Name      string `json:"name"`
		Text      string `json:"text"`
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
		Data      string `json:"data"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anthropicUsage `json:"usage"`
}

// event decodes and applies one SSE event.
func (s *anthropicState) event(data []byte) (bool, *Error) {
	var ev anthropicEvent
	if err := decodeEvent(data, &ev); err != nil {
		return false, err
	}
	if ev.Type == "error" {
		ae, _ := parseAPIError(data)
		return false, streamError(ae, ErrServer)
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

// blockStart opens a text, tool_use, thinking or redacted_thinking block;
// other blocks (a server tool's call and results, ...) are recorded as
// skipped, and their deltas ignored.
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
	case "thinking":
		r := s.acc.startReasoning(ev.Index, Reasoning{Format: ReasoningAnthropic, Type: "thinking", Signature: b.Signature})
		s.acc.addReasoningText(r, b.Thinking)
	case "redacted_thinking":
		s.acc.startReasoning(ev.Index, Reasoning{Format: ReasoningAnthropic, Type: "redacted_thinking", Data: b.Data})
	default:
		s.acc.skip(b.Type)
		if s.other == nil {
			s.other = map[int64]bool{}
		}
		s.other[ev.Index] = true
	}
}

// blockDelta applies a piece of text, tool input, thinking or signature.
func (s *anthropicState) blockDelta(ev *anthropicEvent) *Error {
	d := ev.Delta
	if d == nil {
		return &Error{Kind: ErrMalformedStream, Detail: "content_block_delta without a delta"}
	}
	switch d.Type {
	case "text_delta":
		s.acc.addText(d.Text)
	case "input_json_delta":
		if !s.acc.addArgs(ev.Index, d.PartialJSON) && !s.other[ev.Index] {
			return &Error{Kind: ErrMalformedStream, Detail: "input_json_delta for an unknown content block"}
		}
	case "thinking_delta":
		if r := s.acc.reasoning(ev.Index); r != nil {
			s.acc.addReasoningText(r, d.Thinking)
		}
	case "signature_delta":
		if r := s.acc.reasoning(ev.Index); r != nil {
			r.part.Signature += d.Signature
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
