package provider

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// deltaStream builds a Chat Completions SSE body of n one-character deltas.
func deltaStream(n int) []byte {
	var b bytes.Buffer
	head := `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1763776800,"model":"bench","choices":[{"index":0,"delta":{"content":"`
	tail := `"},"logprobs":null,"finish_reason":null}]}` + "\n\n"
	for i := 0; i < n; i++ {
		b.WriteString(head)
		b.WriteByte('a' + byte(i%26))
		b.WriteString(tail)
	}
	b.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1763776800,"model":"bench","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
	b.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1763776800,"model":"bench","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":` + fmt.Sprint(n) + `,"total_tokens":` + fmt.Sprint(n+10) + `}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkStreamDeltas streams one answer of 10k, 40k and 160k one-character
// deltas from a local server through the openai-compatible provider (Chat
// Completions) and reports ns/delta, which must stay flat as the message
// grows.
func BenchmarkStreamDeltas(b *testing.B) {
	for _, n := range []int{10_000, 40_000, 160_000} {
		b.Run(fmt.Sprintf("deltas=%dk", n/1000), func(b *testing.B) {
			body := deltaStream(n)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write(body)
			}))
			defer srv.Close()
			p := NewOpenAICompatible(Config{BaseURL: srv.URL})
			req := Request{Model: "bench", Messages: []Message{{Role: RoleUser, Text: "go"}}}
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				got := 0
				resp, err := p.Stream(context.Background(), req, func(d Delta) { got += len(d.Text) })
				if err != nil || got != n || len(resp.Text) != n {
					b.Fatalf("err = %v, deltas = %d, text = %d", err, got, len(resp.Text))
				}
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*n), "ns/delta")
		})
	}
}

// BenchmarkStreamDeltasOtherAPIs measures the Responses and Anthropic
// providers the same way, at 10k deltas.
func BenchmarkStreamDeltasOtherAPIs(b *testing.B) {
	const n = 10_000
	cases := []struct {
		name string
		body []byte
		newP func(string) Provider
	}{
		{"responses", responsesDeltaStream(n), func(u string) Provider { return NewOpenAI(Config{APIKey: "k", BaseURL: u}) }},
		{"anthropic", anthropicDeltaStream(n), func(u string) Provider { return NewAnthropic(Config{APIKey: "k", BaseURL: u}) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write(c.body)
			}))
			defer srv.Close()
			p := c.newP(srv.URL)
			req := Request{Model: "bench", Messages: []Message{{Role: RoleUser, Text: "go"}}}
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				resp, err := p.Stream(context.Background(), req, nil)
				if err != nil || len(resp.Text) != n {
					b.Fatalf("err = %v, text = %d", err, len(resp.Text))
				}
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*n), "ns/delta")
		})
	}
}

// responsesDeltaStream builds a Responses SSE body of n one-character deltas.
func responsesDeltaStream(n int) []byte {
	var b bytes.Buffer
	b.WriteString("event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"r\",\"status\":\"in_progress\",\"model\":\"bench\",\"output\":[]}}\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":%d,\"item_id\":\"m\",\"output_index\":0,\"content_index\":0,\"delta\":\"%c\",\"logprobs\":[]}\n\n", i+1, 'a'+i%26)
	}
	b.WriteString("event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":0,\"response\":{\"id\":\"r\",\"status\":\"completed\",\"model\":\"bench\",\"output\":[],\"usage\":{\"input_tokens\":1,\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":1,\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":2}}}\n\n")
	return b.Bytes()
}

// anthropicDeltaStream builds a Messages SSE body of n one-character deltas.
func anthropicDeltaStream(n int) []byte {
	var b bytes.Buffer
	b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"bench\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n")
	b.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"%c\"}}\n\n", 'a'+i%26)
	}
	b.WriteString("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
	b.WriteString("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":10}}\n\n")
	b.WriteString("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	return b.Bytes()
}
