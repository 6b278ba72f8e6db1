package provider

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"google.golang.org/genai"
)

// geminiStreamBody builds a streamGenerateContent body of n text chunks in the live service's
// format (usage in every chunk, CRLF separators, as the recordings show).
func geminiStreamBody(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fin := ""
		if i == n-1 {
			fin = `"finishReason": "STOP",`
		}
		fmt.Fprintf(&b, `data: {"candidates": [{"content": {"parts": [{"text": "word %d "}],"role": "model"},%s"index": 0}],"usageMetadata": {"promptTokenCount": 4,"candidatesTokenCount": %d,"totalTokenCount": %d,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 4}],"thoughtsTokenCount": 2042},"modelVersion": "gemini-2.5-flash","responseId": "IZI2acSKMoWl0-kPmYj2yQc"}`+"\r\n\r\n", i, fin, i+1, i+2047)
	}
	return b.Bytes()
}

// BenchmarkGeminiStream streams one answer of 2,000 chunks from a local server through exo's
// provider (the SDK's request types, exo's decoder) and through the SDK's own
// GenerateContentStream, and reports the cost per chunk of each.
func BenchmarkGeminiStream(b *testing.B) {
	const n = 2000
	body := geminiStreamBody(n)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	req := Request{Model: "gemini-2.5-flash", Messages: []Message{{Role: RoleUser, Text: "go"}}}
	b.Run("exo", func(b *testing.B) {
		p := NewGemini(Config{APIKey: "k", BaseURL: srv.URL})
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			chunks := 0
			if _, err := p.Stream(context.Background(), req, func(Delta) { chunks++ }); err != nil || chunks != n {
				b.Fatalf("%d chunks, %v", chunks, err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/chunk")
	})
	b.Run("sdk", func(b *testing.B) {
		c, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI,
			HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			chunks := 0
			for r, err := range c.Models.GenerateContentStream(context.Background(), "gemini-2.5-flash", genai.Text("go"), nil) {
				if err != nil {
					b.Fatal(err)
				}
				if r.Text() != "" {
					chunks++
				}
			}
			if chunks != n {
				b.Fatalf("%d chunks", chunks)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/chunk")
	})
}
