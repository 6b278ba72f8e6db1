package provider

import (
	"encoding/json"
	"strings"
	"time"
)

// accumulator builds a Response from streamed pieces and forwards each piece
// to the caller. Text and arguments grow in strings.Builders, so each delta
// costs time proportional to its own size.
type accumulator struct {
	onDelta func(Delta)
	start   time.Time
	ttft    time.Duration
	text    strings.Builder
	calls   []*callAcc
	byKey   map[int64]int
	// reasons are the reasoning parts by provider key, in arrival order.
	reasons  []*reasoningAcc
	byReason map[int64]int
	shown    bool      // some reasoning text was shown
	skipped  []Skipped // output passed over
}

// callAcc is one tool call being streamed.
type callAcc struct {
	id, name string
	args     strings.Builder
}

// newAccumulator starts timing a response.
func newAccumulator(onDelta func(Delta)) *accumulator {
	return &accumulator{onDelta: onDelta, start: time.Now(), byKey: map[int64]int{}}
}

// emit forwards a delta and records the time to first token.
func (a *accumulator) emit(d Delta) {
	if a.ttft == 0 {
		a.ttft = max(time.Since(a.start), time.Nanosecond)
	}
	if a.onDelta != nil {
		a.onDelta(d)
	}
}

// addText appends answer text.
func (a *accumulator) addText(s string) {
	if s == "" {
		return
	}
	a.text.WriteString(s)
	a.emit(Delta{Kind: DeltaText, Text: s})
}

// startCall opens a tool call under the provider's key (an output index,
// tool_calls index or content block index).
func (a *accumulator) startCall(key int64, id, name string) {
	if _, ok := a.byKey[key]; ok {
		return
	}
	a.byKey[key] = len(a.calls)
	a.calls = append(a.calls, &callAcc{id: id, name: name})
	a.emit(Delta{Kind: DeltaToolCall, Index: len(a.calls) - 1, ID: id, Name: name})
}

// addArgs appends argument JSON to the call under key; it reports false
// when no such call was started.
func (a *accumulator) addArgs(key int64, s string) bool {
	i, ok := a.byKey[key]
	if !ok {
		return false
	}
	if s != "" {
		a.calls[i].args.WriteString(s)
		a.emit(Delta{Kind: DeltaToolArgs, Index: i, Text: s})
	}
	return true
}

// callID returns the id of the call under key, or "".
func (a *accumulator) callID(key int64) string {
	if i, ok := a.byKey[key]; ok {
		return a.calls[i].id
	}
	return ""
}

// hasCall reports whether a call was started under key.
func (a *accumulator) hasCall(key int64) bool {
	_, ok := a.byKey[key]
	return ok
}

// response assembles the completed response.
func (a *accumulator) response(model string, usage Usage, stop StopReason) Response {
	r := Response{Text: a.text.String(), Usage: usage, StopReason: stop, TTFT: a.ttft, Model: model, Skipped: a.skipped}
	for _, p := range a.reasons {
		r.Reasoning = append(r.Reasoning, p.finish())
	}
	for _, c := range a.calls {
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: c.id, Name: c.name, Arguments: argsJSON(c.args.String())})
	}
	if len(r.ToolCalls) > 0 && (stop == "" || stop == StopEndTurn) {
		r.StopReason = StopToolUse
	}
	return r
}

// argsJSON returns the arguments as JSON: "{}" when empty, the text itself
// when it is valid JSON, and otherwise the text as a JSON string, so that
// the tool loop can tell the model its arguments were not an object.
func argsJSON(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}
