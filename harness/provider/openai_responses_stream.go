package provider

import "encoding/json"

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
	Type         string         `json:"type"`
	OutputIndex  int64          `json:"output_index"`
	SummaryIndex int            `json:"summary_index"`
	Delta        string         `json:"delta"`
	Item         *responsesItem `json:"item"`
	Response     *responsesBody `json:"response"`
}

// responsesItem is an output item: a function call, a reasoning item, a
// message, or another kind that exo skips.
type responsesItem struct {
	Type             string `json:"type"`
	ID               string `json:"id"`
	CallID           string `json:"call_id"`
	Name             string `json:"name"`
	Arguments        string `json:"arguments"`
	EncryptedContent string `json:"encrypted_content"`
	Summary          []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

// responsesBody is the response object carried by lifecycle events.
type responsesBody struct {
	Model             string          `json:"model"`
	Status            string          `json:"status"`
	Error             json.RawMessage `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Usage *struct {
		InputTokens        int64 `json:"input_tokens"`
		OutputTokens       int64 `json:"output_tokens"`
		InputTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		OutputTokensDetails struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	} `json:"usage"`
}

// event decodes and applies one SSE event.
func (s *responsesState) event(data []byte) (bool, *Error) {
	var ev responsesEvent
	if err := decodeEvent(data, &ev); err != nil {
		return false, err
	}
	if ev.Type == "error" {
		return false, s.errorEvent(data)
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
		s.itemAdded(ev)
	case "response.output_item.done":
		s.itemDone(ev)
	case "response.output_text.delta", "response.refusal.delta":
		s.acc.addText(ev.Delta)
	case "response.function_call_arguments.delta":
		if !s.acc.addArgs(ev.OutputIndex, ev.Delta) {
			return &Error{Kind: ErrMalformedStream, Detail: "arguments for an unknown function call"}
		}
	case "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta":
		s.acc.addSummary(s.reasoningItem(ev.OutputIndex), ev.SummaryIndex, ev.Delta)
	case "response.reasoning_text.delta":
		s.acc.addReasoningText(s.reasoningItem(ev.OutputIndex), ev.Delta)
	case "response.completed", "response.incomplete":
		return s.finish(ev.Response)
	case "response.failed":
		return s.failed(ev.Response)
	}
	return nil
}

// reasoningItem returns the reasoning item at an output index, opening it
// if its output_item.added was not seen.
func (s *responsesState) reasoningItem(index int64) *reasoningAcc {
	return s.acc.startReasoning(index, Reasoning{Format: ReasoningResponses, Type: "reasoning"})
}

// itemAdded opens a function call or reasoning item; other kinds (web
// search, file search, computer calls, ...) are recorded as skipped.
func (s *responsesState) itemAdded(ev *responsesEvent) {
	it := ev.Item
	if it == nil {
		return
	}
	switch it.Type {
	case "function_call":
		s.acc.startCall(ev.OutputIndex, it.CallID, it.Name)
		s.acc.addArgs(ev.OutputIndex, it.Arguments)
	case "reasoning":
		r := s.reasoningItem(ev.OutputIndex)
		r.part.ID, r.part.Data = it.ID, firstNonEmpty(it.EncryptedContent, r.part.Data)
	case "message":
	default:
		s.acc.skip(it.Type)
	}
}

// itemDone completes an item from its final form: a reasoning item's
// encrypted content is only complete here, and a server that streams no
// argument deltas sends a call's arguments here.
func (s *responsesState) itemDone(ev *responsesEvent) {
	it := ev.Item
	if it == nil {
		return
	}
	switch it.Type {
	case "reasoning":
		r := s.reasoningItem(ev.OutputIndex)
		r.part.ID, r.part.Data = firstNonEmpty(it.ID, r.part.ID), firstNonEmpty(it.EncryptedContent, r.part.Data)
		if len(r.summary) == 0 {
			for i, p := range it.Summary {
				s.acc.addSummary(r, i, p.Text)
			}
		}
	case "function_call":
		if !s.acc.hasCall(ev.OutputIndex) {
			s.acc.startCall(ev.OutputIndex, it.CallID, it.Name)
		}
		if i := s.acc.byKey[ev.OutputIndex]; s.acc.calls[i].args.Len() == 0 {
			s.acc.addArgs(ev.OutputIndex, it.Arguments)
		}
	}
}

// finish records the final response's usage and status.
func (s *responsesState) finish(r *responsesBody) *Error {
	if r == nil {
		return &Error{Kind: ErrMalformedStream, Detail: "final event without a response"}
	}
	s.done = true
	s.model = firstNonEmpty(r.Model, s.model)
	if u := r.Usage; u != nil {
		s.usage = Usage{Input: u.InputTokens, Output: u.OutputTokens, Cached: u.InputTokensDetails.CachedTokens,
			Reasoning: u.OutputTokensDetails.ReasoningTokens}
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
	if r != nil {
		if ae, ok := parseAPIError(r.Error); ok {
			return streamError(ae, ErrServer)
		}
	}
	return &Error{Kind: ErrServer, Detail: "response failed"}
}

// errorEvent reads an error event, whose code and message are flat (as
// documented) or nested under "error" (as sent for quota errors).
func (s *responsesState) errorEvent(data []byte) *Error {
	ae, _ := parseAPIError(data)
	return streamError(ae, ErrServer)
}
