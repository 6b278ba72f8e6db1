package extexec

import (
	"encoding/json"
	"strings"
	"time"

	"exo/harness"
	"exo/harness/provider"
)

// anthropicTap folds the Anthropic Messages stream passing through the endpoint into the answer
// it records: text, tool calls, usage, stop reason and the time to the first token.
type anthropicTap struct {
	start   time.Time
	ttft    time.Duration
	text    strings.Builder
	calls   []*tapCall
	byIndex map[int]*tapCall
	// thoughts are the thinking and redacted_thinking blocks, in order.
	thoughts  []*tapThought
	thoughtAt map[int]*tapThought
	usage     provider.Usage
	stop      string
	done      bool
	errMsg    string
	errKind   string
}

type tapCall struct {
	id, name string
	args     strings.Builder
}

// tapThought is a thinking block (text and signature) or a redacted one (data).
type tapThought struct {
	typ, data string
	text, sig strings.Builder
}

func newAnthropicTap(start time.Time) *anthropicTap {
	return &anthropicTap{start: start, byIndex: map[int]*tapCall{}, thoughtAt: map[int]*tapThought{}}
}

// tapUsage is the usage object of message_start and message_delta.
type tapUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
}

// tapEvent is the part of a stream event the tap reads.
type tapEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		Usage tapUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *tapBlock `json:"content_block"`
	Delta        *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *tapUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// tapBlock is a content block as it starts (streamed) or whole (not streamed).
type tapBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	Input     json.RawMessage `json:"input"`
}

// thought opens a thinking block at index.
func (t *anthropicTap) thought(index int, b *tapBlock) {
	th := &tapThought{typ: b.Type, data: b.Data}
	th.text.WriteString(b.Thinking)
	th.sig.WriteString(b.Signature)
	t.thoughts = append(t.thoughts, th)
	t.thoughtAt[index] = th
}

// event applies one event's data.
func (t *anthropicTap) event(data []byte) {
	var ev tapEvent
	if json.Unmarshal(data, &ev) != nil {
		return
	}
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			t.setUsage(ev.Message.Usage)
		}
	case "content_block_start":
		t.blockStart(&ev)
	case "content_block_delta":
		t.blockDelta(&ev)
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			t.stop = ev.Delta.StopReason
		}
		if ev.Usage != nil {
			t.setUsage(*ev.Usage)
		}
	case "message_stop":
		t.done = true
	case "error":
		t.errKind, t.errMsg = "server", "error event"
		if ev.Error != nil {
			t.errKind, t.errMsg = ev.Error.Type, ev.Error.Message
		}
	}
}

// firstToken marks the time to the first token.
func (t *anthropicTap) firstToken() {
	if t.ttft == 0 {
		t.ttft = time.Since(t.start)
	}
}

func (t *anthropicTap) blockStart(ev *tapEvent) {
	b := ev.ContentBlock
	if b == nil {
		return
	}
	switch b.Type {
	case "text":
		t.text.WriteString(b.Text)
	case "thinking", "redacted_thinking":
		t.thought(ev.Index, b)
		t.firstToken()
	case "tool_use", "server_tool_use":
		c := &tapCall{id: b.ID, name: b.Name}
		if len(b.Input) > 0 && string(b.Input) != "{}" {
			c.args.Write(b.Input)
		}
		t.calls = append(t.calls, c)
		t.byIndex[ev.Index] = c
		t.firstToken()
	}
}

func (t *anthropicTap) blockDelta(ev *tapEvent) {
	if ev.Delta == nil {
		return
	}
	t.firstToken()
	switch ev.Delta.Type {
	case "text_delta":
		t.text.WriteString(ev.Delta.Text)
	case "thinking_delta":
		if th := t.thoughtAt[ev.Index]; th != nil {
			th.text.WriteString(ev.Delta.Thinking)
		}
	case "signature_delta":
		if th := t.thoughtAt[ev.Index]; th != nil {
			th.sig.WriteString(ev.Delta.Signature)
		}
	case "input_json_delta":
		if c := t.byIndex[ev.Index]; c != nil {
			c.args.WriteString(ev.Delta.PartialJSON)
		}
	}
}

// setUsage records usage counts; Input counts cache reads and writes too, as exo's providers do.
func (t *anthropicTap) setUsage(u tapUsage) {
	if u.OutputTokens != nil {
		t.usage.Output = max(t.usage.Output, *u.OutputTokens)
	}
	var in, read, write int64
	if u.InputTokens != nil {
		in = *u.InputTokens
	}
	if u.CacheReadInputTokens != nil {
		read = *u.CacheReadInputTokens
	}
	if u.CacheCreationInputTokens != nil {
		write = *u.CacheCreationInputTokens
	}
	if in+read+write > 0 {
		t.usage.Input, t.usage.Cached, t.usage.CacheWrite = in+read+write, read, write
	}
}

// answer returns what the stream said.
func (t *anthropicTap) answer(took time.Duration) Answer {
	a := Answer{Text: t.text.String(), Usage: t.usage, Stop: t.stop, TTFT: t.ttft, Took: took}
	for _, th := range t.thoughts {
		a.Reasoning = append(a.Reasoning, provider.Reasoning{Format: provider.ReasoningAnthropic, Type: th.typ, Text: th.text.String(),
			Signature: th.sig.String(), Data: th.data})
	}
	for _, c := range t.calls {
		a.ToolCalls = append(a.ToolCalls, harness.ToolCall{ID: c.id, Name: c.name, Arguments: rawJSON([]byte(c.args.String()))})
	}
	return a
}

// message folds a whole (non-streamed) Messages answer.
func (t *anthropicTap) message(raw []byte) {
	var m struct {
		Content    []tapBlock `json:"content"`
		StopReason string     `json:"stop_reason"`
		Usage      tapUsage   `json:"usage"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return
	}
	t.firstToken()
	for i, b := range m.Content {
		switch b.Type {
		case "text":
			t.text.WriteString(b.Text)
		case "thinking", "redacted_thinking":
			t.thought(i, &b)
		case "tool_use":
			c := &tapCall{id: b.ID, name: b.Name}
			c.args.Write(b.Input)
			t.calls = append(t.calls, c)
		}
	}
	t.stop, t.done = m.StopReason, true
	t.setUsage(m.Usage)
}

// errorEvent is a Messages stream's error event.
func (t *anthropicTap) errorEvent(msg string) []byte {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "api_error", "message": msg}})
	return []byte("event: error\ndata: " + string(b) + "\n\n")
}
