package extexec_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"exo/harness/extexec"
	"exo/harness/extexec/pumptest"
)

// rpcPeer starts a JSON-RPC peer whose requests to exo block until their context ends (asked
// and ended are told of each method).
func rpcPeer(t *testing.T) (p *extexec.Process, rpc *extexec.RPC, asked, ended chan string) {
	t.Helper()
	p = pumptest.Start(t, "rpc")
	asked, ended = make(chan string, 8), make(chan string, 8)
	rpc = extexec.NewRPC(p, extexec.RPCOptions{Agent: "peer", Handler: func(ctx context.Context, method string, _ json.RawMessage) (any, *extexec.RPCError) {
		asked <- method
		<-ctx.Done()
		ended <- method
		return nil, &extexec.RPCError{Code: -32800, Message: "cancelled"}
	}})
	return p, rpc, asked, ended
}

// say makes the peer write raw (its %ID% the request's id) and answer if answer.
func say(raw string, answer bool) pumptest.Params {
	return pumptest.Params{B64: base64.StdEncoding.EncodeToString([]byte(raw)), Answer: answer}
}

// TestPumpLineOverTheBoundFailsTheWaiter: a reply of 64 MiB and more on one line ends the agent
// (Process's bound), and the Call waiting for it gets an error saying so; a reply of 16 MiB
// arrives whole.
func TestPumpLineOverTheBoundFailsTheWaiter(t *testing.T) {
	_, rpc, _, _ := rpcPeer(t)
	ctx := context.Background()
	raw, err := rpc.Call(ctx, pumptest.Big, pumptest.Params{Size: 16 << 20}, 2*time.Minute)
	if err != nil || len(raw) != 16<<20+2 {
		t.Fatalf("a 16 MiB reply: %d bytes, %v", len(raw), err)
	}
	_, err = rpc.Call(ctx, pumptest.Big, pumptest.Params{Size: 64 << 20}, 2*time.Minute)
	var gone *extexec.GoneError
	if !errors.As(err, &gone) || !errors.Is(err, extexec.ErrAgentGone) {
		t.Fatalf("a 64 MiB reply: %v, want the agent gone", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "peer exited before answering big") || !strings.Contains(msg, "line of over 64 MiB") {
		t.Fatalf("error %q does not say why", msg)
	}
	if _, err := rpc.Call(ctx, pumptest.Echo, nil, time.Minute); !errors.Is(err, extexec.ErrAgentGone) {
		t.Fatalf("a call after the end: %v", err)
	}
}

// TestPumpLastLineWithoutNewline: a reply the agent writes without its newline before exiting is
// delivered; a half message then EOF is skipped and the waiter told how the agent ended.
func TestPumpLastLineWithoutNewline(t *testing.T) {
	t.Parallel()
	_, rpc, _, _ := rpcPeer(t)
	raw, err := rpc.Call(context.Background(), pumptest.Big, pumptest.Params{Size: 100, Cut: true}, time.Minute)
	if err != nil || len(raw) != 102 {
		t.Fatalf("the unterminated last reply: %q %v", raw, err)
	}
	_, rpc, _, _ = rpcPeer(t)
	_, err = rpc.Call(context.Background(), pumptest.Say, pumptest.Params{B64: base64.StdEncoding.EncodeToString([]byte(`{"id":%ID%,"result":"par`)), Exit: 3}, time.Minute)
	if !errors.Is(err, extexec.ErrAgentGone) || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("a half reply then EOF: %v", err)
	}
}

// TestPumpInvalidUTF8: lines that are not JSON, or hold invalid UTF-8, are skipped or delivered
// as they are (decoding them gives U+FFFD), and the pump goes on.
func TestPumpInvalidUTF8(t *testing.T) {
	t.Parallel()
	_, rpc, _, _ := rpcPeer(t)
	raw, err := rpc.Call(context.Background(), pumptest.Say, say("\xff\xfe not json\n"+
		`{"method":"note","params":{"text":"caf`+"\xc3 \xff"+`"}}`+"\n"+
		`{"id":%ID%,"result":"r`+"\xed\xa0\x80"+`"}`+"\n", false), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || !utf8.ValidString(s) || !strings.Contains(s, "\uFFFD") {
		t.Fatalf("result %q decodes to %q, %v", raw, s, err)
	}
	ns, _ := rpc.Take()
	if len(ns) != 1 || ns[0].Method != "note" {
		t.Fatalf("notifications %+v", ns)
	}
	if raw, err := rpc.Call(context.Background(), pumptest.Echo, map[string]int{"after": 1}, time.Minute); err != nil || string(raw) != `{"after":1}` {
		t.Fatalf("the next call: %s %v", raw, err)
	}
}

// TestPumpStrayReplies: a reply to an id nobody waits for, and a second reply to the same id,
// are dropped; the call gets the first, and the next call its own.
func TestPumpStrayReplies(t *testing.T) {
	t.Parallel()
	_, rpc, _, _ := rpcPeer(t)
	raw, err := rpc.Call(context.Background(), pumptest.Say, say(`{"id":999,"result":"unknown"}`+"\n"+`{"id":"nope","error":{"code":1,"message":"x"}}`+"\n"+
		`{"id":%ID%,"result":"first"}`+"\n"+`{"id":%ID%,"result":"second"}`+"\n", false), time.Minute)
	if err != nil || string(raw) != `"first"` {
		t.Fatalf("%s %v", raw, err)
	}
	for i := 0; i < 3; i++ {
		if raw, err := rpc.Call(context.Background(), pumptest.Echo, i, time.Minute); err != nil || string(raw) != string(rune('0'+i)) {
			t.Fatalf("call %d after the stray replies: %s %v", i, raw, err)
		}
	}
}

// TestPumpKilledMidRequest: kill -9 of the agent while exo waits on three requests and answers
// one of its own (pumptest.KillMidRequest).
func TestPumpKilledMidRequest(t *testing.T) {
	pumptest.KillMidRequest(t, func() pumptest.Pump {
		p, rpc, asked, ended := rpcPeer(t)
		return pumptest.Pump{Proc: p, Agent: "peer", Ready: rpc.Ready(), Asked: asked, Ended: ended,
			Call: func(m string) error { _, err := rpc.Call(context.Background(), m, nil, 10*time.Minute); return err },
			Take: func() (int, bool) { ns, closed := rpc.Take(); return len(ns), closed }}
	})
}

// TestPumpUnreadFloodStopsTheAgent: an agent that writes notifications nobody takes (between
// turns, or to a stuck turn) is stopped once more than the bound waits, and the Call waiting on
// it is told why, instead of the daemon's memory growing with the flood. What was queued before
// the bound is still there for the turn.
func TestPumpUnreadFloodStopsTheAgent(t *testing.T) {
	defer extexec.SetMaxQueuedBytes(1 << 20)()
	p, rpc, _, _ := rpcPeer(t)
	_, err := rpc.Call(context.Background(), pumptest.Stream, pumptest.Params{N: 1024, Size: 16 << 10}, 2*time.Minute)
	if !errors.Is(err, extexec.ErrAgentGone) {
		t.Fatalf("a flood nobody reads: %v, want the agent stopped", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "messages that were not read") {
		t.Fatalf("error %q does not say why", msg)
	}
	if why := p.StopReason(); !strings.Contains(why, "over 1 MiB") {
		t.Fatalf("stop reason %q", why)
	}
	msgs, _ := rpc.Take()
	if len(msgs) < 32 || len(msgs) > 128 { // 64 of 16 KiB reach 1 MiB
		t.Fatalf("%d notifications kept of 1,024 of 16 KiB each under a 1 MiB bound", len(msgs))
	}
}
