package extexec

import (
	"encoding/json"
	"strings"
	"time"

	"exo/harness"
	"exo/harness/provider"
)

// responsesTap folds the OpenAI Responses stream passing through the endpoint into the answer it
// records: text, function calls (by call_id), usage, status and the time to the first token.
type responsesTap struct {
	start  time.Time
	ttft   time.Duration
	text   strings.Builder
	calls  []*tapCall
	byItem map[string]*tapCall
	// reasoning are the reasoning items, as each ended.
	reasoning []provider.Reasoning
	usage     provider.Usage
	stop      string
	done      bool
	errMsg    string
	errKind   string
}

func newResponsesTap(start time.Time) *responsesTap {
	return &responsesTap{start: start, byItem: map[string]*tapCall{}}
}

// responsesItem is an output item.
type responsesItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Input     string `json:"input"`
	// Summary, Content and EncryptedContent are a reasoning item's.
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	EncryptedContent string `json:"encrypted_content"`
}

// responsesUsage is a response's usage.
type responsesUsage struct {
	InputTokens        int64 `json:"input_tokens"`
	OutputTokens       int64 `json:"output_tokens"`
	InputTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
}

// responsesEvent is the part of a stream event the tap reads.
type responsesEvent struct {
	Type     string         `json:"type"`
	ItemID   string         `json:"item_id"`
	Delta    string         `json:"delta"`
	Item     *responsesItem `json:"item"`
	Response *struct {
		Status            string          `json:"status"`
		Usage             *responsesUsage `json:"usage"`
		IncompleteDetails *struct {
			Reason string `json:"reason"`
		} `json:"incomplete_details"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"response"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// event applies one event's data.
func (t *responsesTap) event(data []byte) {
	var ev responsesEvent
	if json.Unmarshal(data, &ev) != nil {
		return
	}
	switch ev.Type {
	case "response.output_item.added":
		t.itemAdded(ev.Item)
	case "response.output_text.delta", "response.refusal.delta":
		t.firstToken()
		t.text.WriteString(ev.Delta)
	case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
		t.firstToken()
		if c := t.byItem[ev.ItemID]; c != nil {
			c.args.WriteString(ev.Delta)
		}
	case "response.output_item.done":
		t.itemDone(ev.Item)
	case "response.completed", "response.incomplete":
		t.completed(&ev)
	case "response.failed":
		t.errKind, t.errMsg = "server", "the response failed"
		if ev.Response != nil && ev.Response.Error != nil {
			t.errKind, t.errMsg = ev.Response.Error.Code, ev.Response.Error.Message
		}
	case "error":
		t.errKind, t.errMsg = ev.Code, firstNonEmpty(ev.Message, "error event")
	}
}

// firstToken marks the time to the first token.
func (t *responsesTap) firstToken() {
	if t.ttft == 0 {
		t.ttft = time.Since(t.start)
	}
}

// itemAdded opens a function call.
func (t *responsesTap) itemAdded(it *responsesItem) {
	if it == nil || it.Type != "function_call" && it.Type != "custom_tool_call" {
		return
	}
	t.firstToken()
	c := &tapCall{id: it.CallID, name: it.Name}
	t.calls = append(t.calls, c)
	t.byItem[it.ID] = c
}

// itemDone takes a call's final arguments (authoritative over the deltas).
func (t *responsesTap) itemDone(it *responsesItem) {
	if it == nil {
		return
	}
	if it.Type == "reasoning" {
		t.reasoned(it)
		return
	}
	c := t.byItem[it.ID]
	if c == nil {
		return
	}
	final := it.Arguments
	if it.Type == "custom_tool_call" {
		b, _ := json.Marshal(map[string]string{"input": it.Input})
		final = string(b)
	}
	if final != "" {
		c.args.Reset()
		c.args.WriteString(final)
	}
}

// reasoned keeps a reasoning item: its summary, its reasoning text and its encrypted content.
func (t *responsesTap) reasoned(it *responsesItem) {
	r := provider.Reasoning{Format: provider.ReasoningResponses, Type: "reasoning", ID: it.ID, Data: it.EncryptedContent}
	for _, s := range it.Summary {
		r.Summary = append(r.Summary, s.Text)
	}
	var text []string
	for _, c := range it.Content {
		if c.Type == "reasoning_text" && c.Text != "" {
			text = append(text, c.Text)
		}
	}
	r.Text = strings.Join(text, "\n")
	t.reasoning = append(t.reasoning, r)
}

// completed records the usage and how the response ended.
func (t *responsesTap) completed(ev *responsesEvent) {
	t.done = true
	t.stop = "end_turn"
	if len(t.calls) > 0 {
		t.stop = "tool_use"
	}
	if ev.Response == nil {
		return
	}
	if ev.Response.IncompleteDetails != nil && ev.Response.IncompleteDetails.Reason != "" {
		t.stop = ev.Response.IncompleteDetails.Reason
	}
	if u := ev.Response.Usage; u != nil {
		t.usage = provider.Usage{Input: u.InputTokens, Output: u.OutputTokens, Cached: u.InputTokensDetails.CachedTokens}
	}
}

// answer returns what the stream said.
func (t *responsesTap) answer(took time.Duration) Answer {
	a := Answer{Text: t.text.String(), Reasoning: t.reasoning, Usage: t.usage, Stop: t.stop, TTFT: t.ttft, Took: took}
	for _, c := range t.calls {
		a.ToolCalls = append(a.ToolCalls, harness.ToolCall{ID: c.id, Name: c.name, Arguments: rawJSON([]byte(c.args.String()))})
	}
	return a
}

// errorEvent is a Responses stream's error event.
func (t *responsesTap) errorEvent(msg string) []byte {
	b, _ := json.Marshal(map[string]any{"type": "error", "code": "server_error", "message": msg, "param": nil})
	return []byte("event: error\ndata: " + string(b) + "\n\n")
}
