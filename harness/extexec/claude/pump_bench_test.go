package claude

import (
	"context"
	"testing"
	"time"

	"exo/harness/extexec/pumptest"
)

// BenchmarkPumpClaude measures the stream-json control pump against a real child on real pipes,
// as BenchmarkPumpRPC does Codex's: call is one control request and its response; stream is a
// control request answered after 1,000 stream events of 64 bytes of text, all taken; serve is a
// control request during which the child asks can_use_tool, allowed by exo's handler.
func BenchmarkPumpClaude(b *testing.B) {
	start := func(b *testing.B) *conn {
		return newConn(pumptest.Start(b, "claude"), handlers{canUse: func(context.Context, controlRequest) permission { return permission{Allow: true} }})
	}
	b.Run("call", func(b *testing.B) {
		c := start(b)
		fields := map[string]any{"threadId": "t", "input": []map[string]any{{"type": "text", "text": "hello"}}}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := c.request(pumptest.Echo, fields, time.Minute); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stream", func(b *testing.B) {
		c := start(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := c.request(pumptest.Stream, map[string]any{"n": 1000, "size": 64}, time.Minute); err != nil {
				b.Fatal(err)
			}
			if msgs, _ := c.Take(); len(msgs) != 1000 {
				b.Fatalf("%d messages, want 1000", len(msgs))
			}
		}
	})
	b.Run("serve", func(b *testing.B) {
		c := start(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			raw, err := c.request(pumptest.Ask, nil, time.Minute)
			if err != nil || string(raw) != `{"behavior":"allow","updatedInput":{"command":"ls"}}` {
				b.Fatalf("%s %v", raw, err)
			}
		}
	})
}
