package provider

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// states builds a fresh state machine for each recorded fixture's API.
var states = map[string]func() (func([]byte) (bool, *Error), func() bool){
	"openai-responses": func() (func([]byte) (bool, *Error), func() bool) {
		s := &responsesState{acc: newAccumulator(nil)}
		return s.event, func() bool { return s.done }
	},
	"chat": func() (func([]byte) (bool, *Error), func() bool) {
		s := &chatState{acc: newAccumulator(nil)}
		return s.event, func() bool { return s.stop != "" }
	},
	"anthropic": func() (func([]byte) (bool, *Error), func() bool) {
		s := &anthropicState{acc: newAccumulator(nil)}
		return s.event, func() bool { return s.done }
	},
	"gemini": func() (func([]byte) (bool, *Error), func() bool) {
		s := newGeminiState(nil, "gemini-2.5-flash")
		return s.event, s.complete
	},
}

// TestTruncatedStreamsNeverPassAsComplete cuts every recorded stream at
// every byte: each cut must fail (never panic, never succeed) unless it
// falls after the event that completes the response.
func TestTruncatedStreamsNeverPassAsComplete(t *testing.T) {
	files := map[string]string{
		"openai-responses-1-tool.sse": "openai-responses", "openai-responses-2-answer.sse": "openai-responses",
		"chat-1-tool.sse": "chat", "chat-2-answer.sse": "chat",
		"anthropic-1-tool.sse": "anthropic", "anthropic-2-answer.sse": "anthropic",
	}
	terminal := map[string]string{"openai-responses": "event: response.completed", "chat": `"finish_reason":"`, "anthropic": "event: message_stop"}
	for file, api := range files {
		body := fixture(t, file)
		line := strings.LastIndex(body, terminal[api])
		end := line + strings.Index(body[line:], "\n\n") + 2 // the terminal event's closing blank line
		for cut := 0; cut <= len(body); cut++ {
			event, complete := states[api]()
			err := consume(context.Background(), api, nil, bytes.NewReader([]byte(body[:cut])), event, complete, "the end")
			if cut < end && err == nil {
				t.Fatalf("%s cut at %d/%d passed as complete", file, cut, len(body))
			}
			if cut >= end && err != nil {
				t.Fatalf("%s cut at %d after the terminal event: %v", file, cut, err)
			}
			if err != nil && !errors.Is(err, ErrStreamCut) && !errors.Is(err, ErrMalformedStream) {
				t.Fatalf("%s cut at %d: unexpected %v", file, cut, err)
			}
		}
	}
}

// FuzzEvents feeds arbitrary event data to every API's decoder: no input
// may panic.
func FuzzEvents(f *testing.F) {
	for _, file := range []string{"openai-responses-1-tool.sse", "chat-1-tool.sse", "anthropic-1-tool.sse",
		"gemini/usage-last-chunk.reconstructed.sse", "gemini/safety-mid-answer.reconstructed.sse", "gemini/error-in-stream.reconstructed.sse"} {
		for _, ev := range strings.Split(fixture(f, file), "\n\n") {
			if _, data, ok := strings.Cut(ev, "data: "); ok {
				f.Add([]byte(data))
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mk := range states {
			event, _ := mk()
			_, _ = event(data)
			_, _ = event(data) // twice: repeated starts and deltas
		}
	})
}
