package extexec_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"exo/harness/extexec"
	"exo/harness/extexec/pumptest"
)

// BenchmarkPumpRPC measures the JSON-RPC pump (Codex's app-server) against a real child on real
// pipes: call is one request and its answer; stream is a request answered after 1,000
// notifications of 64 bytes of text (a long answer's deltas), all taken; serve is a request
// during which the child asks exo one request of its own, answered by the handler. The child's
// own work is in the time, not in B/op and allocs/op (they count exo's process only). The sdk-
// cases do the same with the ACP SDK's JSON-RPC connection on the same child (the library
// Pump's comment weighs).
func BenchmarkPumpRPC(b *testing.B) {
	start := func(b *testing.B) *extexec.RPC {
		p := pumptest.Start(b, "rpc")
		return extexec.NewRPC(p, extexec.RPCOptions{Handler: func(_ context.Context, method string, _ json.RawMessage) (any, *extexec.RPCError) {
			return map[string]any{"decision": "accept"}, nil
		}})
	}
	ctx := context.Background()
	b.Run("call", func(b *testing.B) {
		rpc := start(b)
		params := map[string]any{"threadId": "t", "input": []map[string]any{{"type": "text", "text": "hello"}}}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := rpc.Call(ctx, pumptest.Echo, params, time.Minute); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stream", func(b *testing.B) {
		rpc := start(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := rpc.Call(ctx, pumptest.Stream, pumptest.Params{N: 1000, Size: 64}, time.Minute); err != nil {
				b.Fatal(err)
			}
			if ns, _ := rpc.Take(); len(ns) != 1000 {
				b.Fatalf("%d notifications, want 1000", len(ns))
			}
		}
	})
	b.Run("serve", func(b *testing.B) {
		rpc := start(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			raw, err := rpc.Call(ctx, pumptest.Ask, nil, time.Minute)
			if err != nil || string(raw) != `{"decision":"accept"}` {
				b.Fatalf("%s %v", raw, err)
			}
		}
	})
	benchmarkSDK(b)
}

// benchmarkSDK runs BenchmarkPumpRPC's cases on the ACP SDK's connection.
func benchmarkSDK(b *testing.B) {
	var notes atomic.Int64
	start := func(b *testing.B) *sdk.Connection {
		p := pumptest.Start(b, "rpc")
		c := sdk.NewConnection(func(_ context.Context, method string, _ json.RawMessage) (any, *sdk.RequestError) {
			if method == "item/agentMessage/delta" {
				notes.Add(1)
				return nil, nil
			}
			return map[string]any{"decision": "accept"}, nil
		}, p.Writer(), p.Reader())
		c.SetLogger(slog.New(slog.DiscardHandler))
		return c
	}
	ctx := context.Background()
	b.Run("sdk-call", func(b *testing.B) {
		c := start(b)
		params := map[string]any{"threadId": "t", "input": []map[string]any{{"type": "text", "text": "hello"}}}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := sdk.SendRequest[json.RawMessage](c, ctx, pumptest.Echo, params); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk-stream", func(b *testing.B) {
		c := start(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			notes.Store(0)
			if _, err := sdk.SendRequest[json.RawMessage](c, ctx, pumptest.Stream, pumptest.Params{N: 1000, Size: 64}); err != nil {
				b.Fatal(err)
			}
			if n := notes.Load(); n != 1000 {
				b.Fatalf("%d notifications, want 1000", n)
			}
		}
	})
	b.Run("sdk-serve", func(b *testing.B) {
		c := start(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			raw, err := sdk.SendRequest[json.RawMessage](c, ctx, pumptest.Ask, nil)
			if err != nil || string(raw) != `{"decision":"accept"}` {
				b.Fatalf("%s %v", raw, err)
			}
		}
	})
}
