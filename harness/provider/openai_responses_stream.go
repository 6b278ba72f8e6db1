package provider

import (
	"encoding/json"
	"strings"
)

// responsesState folds Responses stream events.
type responsesState struct {
	acc   *accumulator
	model string
	usage Usage
	stop  StopReason
	done  bool
	// other maps the output items of types exo skips to their skipped record (-1: not the
	// first of its type).
	other map[int64]int
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
		InputTokens        acctCount `json:"input_tokens"`
		OutputTokens       acctCount `json:"output_tokens"`
		InputTokensDetails struct {
			CachedTokens acctCount `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		OutputTokensDetails struct {
			ReasoningTokens acctCount `json:"reasoning_tokens"`
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
	return s.done, s.handle(&ev, data)
}

// handle applies one event; data is the event as received, kept for what is skipped.
func (s *responsesState) handle(ev *responsesEvent, data []byte) *Error {
	switch ev.Type {
	case "response.created", "response.in_progress":
		if ev.Response != nil {
			s.model = firstNonEmpty(ev.Response.Model, s.model)
		}
	case "response.output_item.added":
		s.itemAdded(ev, data)
	case "response.output_item.done":
		s.itemDone(ev, data)
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
	default:
		s.otherEvent(ev, data)
	}
	return nil
}

// quietEvents are the Responses events whose content exo has from others: the ends of parts
// and texts it streamed, and a queued response.
var quietEvents = map[string]bool{
	"response.content_part.added": true, "response.content_part.done": true, "response.output_text.done": true,
	"response.refusal.done": true, "response.function_call_arguments.done": true,
	"response.reasoning_summary_part.done": true, "response.reasoning_summary_text.done": true,
	"response.reasoning_text.done": true, "response.queued": true,
}

// otherEvent records an event exo does not use as skipped, with what it held: an annotation
// (a citation) of the answer's text, or an unknown event. The progress events of a skipped
// item (web_search_call.searching, ...) are not recorded again: its final form is.
func (s *responsesState) otherEvent(ev *responsesEvent, data []byte) {
	if quietEvents[ev.Type] {
		return
	}
	for _, sk := range s.acc.skipped {
		if strings.HasPrefix(ev.Type, "response."+sk.Type+".") {
			return
		}
	}
	if ev.Type == "response.output_text.annotation.added" {
		s.acc.skip("annotation", rawField(data, "annotation"))
		return
	}
	s.acc.skip(ev.Type, data)
}

// reasoningItem returns the reasoning item at an output index, opening it
// if its output_item.added was not seen.
func (s *responsesState) reasoningItem(index int64) *reasoningAcc {
	return s.acc.startReasoning(index, Reasoning{Format: ReasoningResponses, Type: "reasoning"})
}

// itemAdded opens a function call or reasoning item; other kinds (web
// search, file search, computer calls, ...) are recorded as skipped.
func (s *responsesState) itemAdded(ev *responsesEvent, data []byte) {
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
		if s.other == nil {
			s.other = map[int64]int{}
		}
		s.other[ev.OutputIndex] = s.acc.skip(it.Type, rawField(data, "item"))
	}
}

// itemDone completes an item from its final form: a reasoning item's
// encrypted content is only complete here, a server that streams no
// argument deltas sends a call's arguments here, and a skipped item's
// record gets its final content.
func (s *responsesState) itemDone(ev *responsesEvent, data []byte) {
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
	default:
		if i, ok := s.other[ev.OutputIndex]; ok {
			s.acc.setSkipped(i, rawField(data, "item"))
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
		s.usage = Usage{Input: int64(u.InputTokens), Output: int64(u.OutputTokens), Cached: int64(u.InputTokensDetails.CachedTokens),
			Reasoning: int64(u.OutputTokensDetails.ReasoningTokens)}
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
