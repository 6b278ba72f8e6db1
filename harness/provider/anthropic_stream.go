package provider

// anthropicState folds Messages stream events.
type anthropicState struct {
	acc   *accumulator
	model string
	usage Usage
	stop  StopReason
	done  bool
	// other maps the content blocks of types exo skips to their skipped record.
	other map[int64]*skippedBlock
}

// skippedBlock is a content block exo skips: its record (-1: not the first of its type,
// whose content is not kept) and whether its deltas began.
type skippedBlock struct {
	rec    int
	deltas bool
}

// anthropicUsage is the usage object of message_start and message_delta.
type anthropicUsage struct {
	InputTokens              acctCount `json:"input_tokens"`
	OutputTokens             acctCount `json:"output_tokens"`
	CacheReadInputTokens     acctCount `json:"cache_read_input_tokens"`
	CacheCreationInputTokens acctCount `json:"cache_creation_input_tokens"`
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
	return s.done, s.handle(&ev, data)
}

// handle applies one event; data is the event as received, kept for what is skipped.
func (s *anthropicState) handle(ev *anthropicEvent, data []byte) *Error {
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			s.model = firstNonEmpty(ev.Message.Model, s.model)
			s.setUsage(ev.Message.Usage)
		}
	case "content_block_start":
		s.blockStart(ev, data)
	case "content_block_delta":
		return s.blockDelta(ev, data)
	case "message_delta":
		s.messageDelta(ev)
	case "message_stop":
		s.done = true
	case "content_block_stop", "ping":
	default:
		s.acc.skip(ev.Type, data)
	}
	return nil
}

// setUsage records usage; Input counts cache reads and writes too.
func (s *anthropicState) setUsage(u anthropicUsage) {
	s.usage.Output = max(s.usage.Output, int64(u.OutputTokens))
	if in := int64(u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens); in > 0 {
		s.usage.Input, s.usage.Cached, s.usage.CacheWrite = in, int64(u.CacheReadInputTokens), int64(u.CacheCreationInputTokens)
	}
}

// blockStart opens a text, tool_use, thinking or redacted_thinking block;
// other blocks (a server tool's call and results, ...) are recorded as
// skipped, with what they hold and their deltas.
func (s *anthropicState) blockStart(ev *anthropicEvent, data []byte) {
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
		if s.other == nil {
			s.other = map[int64]*skippedBlock{}
		}
		s.other[ev.Index] = &skippedBlock{rec: s.acc.skip(b.Type, rawField(data, "content_block"))}
	}
}

// blockDelta applies a piece of text, tool input, thinking or signature. A
// delta of a skipped block adds to its record; a delta of a type exo does not
// know (citations) is recorded as skipped.
func (s *anthropicState) blockDelta(ev *anthropicEvent, data []byte) *Error {
	d := ev.Delta
	if d == nil {
		return &Error{Kind: ErrMalformedStream, Detail: "content_block_delta without a delta"}
	}
	if b, ok := s.other[ev.Index]; ok {
		s.skippedDelta(b, d.Type, d.PartialJSON, data)
		return nil
	}
	switch d.Type {
	case "text_delta":
		s.acc.addText(d.Text)
	case "input_json_delta":
		if !s.acc.addArgs(ev.Index, d.PartialJSON) {
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
	default:
		s.acc.skip(d.Type, rawField(data, "delta"))
	}
	return nil
}

// skippedDelta adds a delta of a skipped block to its record, on a line after the block's
// start: the JSON pieces of input_json_delta joined, other deltas as received.
func (s *anthropicState) skippedDelta(b *skippedBlock, typ, partial string, data []byte) {
	if b.rec < 0 {
		return
	}
	if !b.deltas || typ != "input_json_delta" {
		s.acc.skipMore(b.rec, []byte("\n"))
	}
	b.deltas = true
	if typ == "input_json_delta" {
		s.acc.skipMore(b.rec, []byte(partial))
		return
	}
	s.acc.skipMore(b.rec, rawField(data, "delta"))
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
