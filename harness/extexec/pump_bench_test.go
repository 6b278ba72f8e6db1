package extexec_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"exo/harness/extexec"
	"exo/harness/extexec/pumptest"
)

// startPeer starts the test binary as a pumptest peer speaking framing.
func startPeer(tb testing.TB, framing string) *extexec.Process {
	tb.Helper()
	p, err := extexec.Start(extexec.Spec{Path: os.Args[0], Args: []string{"-test.run=^$"}, Dir: tb.TempDir(),
		Env: map[string]string{pumptest.Env: framing}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { p.Stop(5 * time.Second) })
	return p
}

// BenchmarkPumpRPC measures the JSON-RPC pump (Codex's app-server) against a real child on real
// pipes: call is one request and its answer; stream is a request answered after 1,000
// notifications of 64 bytes of text (a long answer's deltas), all taken; serve is a request
// during which the child asks exo one request of its own, answered by the handler. The child's
// own work is in the time, not in B/op and allocs/op (they count exo's process only).
func BenchmarkPumpRPC(b *testing.B) {
	start := func(b *testing.B) *extexec.RPC {
		p := startPeer(b, "rpc")
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
}
