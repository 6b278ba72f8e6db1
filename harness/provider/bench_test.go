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
// deltas from a local server through the openai-compatible provider (the
// official SDK's Chat Completions stream) and reports ns/delta, which must
// stay flat as the message grows.
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
