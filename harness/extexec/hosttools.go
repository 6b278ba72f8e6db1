package extexec

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"exo/harness/executor"
	"exo/harness/provider"
)

// answerWait bounds how long a tool call waits for the model answer that made it to be recorded.
const answerWait = 10 * time.Second

// HostTools runs an agent's calls of exo's tools through exo's executor (named after the external
// executor, so its events carry that actor), after the answer that made them is recorded.
type HostTools struct {
	X   *executor.Executor
	Log *Log

	mu sync.Mutex
	// turn is the span of the turn running, the parent of the tool calls' spans (the agent's
	// calls arrive on requests of their own).
	turn trace.SpanContext
	// ended is done once the turn the calls belong to ends (and endCalls ends it): a call the
	// agent left running when it died, or was cancelled, stops with its turn instead of waiting
	// for an approval or a command nobody will read the result of.
	calls *turnCalls
}

// turnCalls are the host tool calls of one turn (or of the time between two).
type turnCalls struct {
	ended  context.Context
	end    context.CancelFunc
	flight sync.WaitGroup
}

// callsWait bounds how long the end of a turn waits for its cancelled calls to record their end.
const callsWait = 10 * time.Second

// setTurn notes the running turn's span (a context without one: no turn runs).
func (t *HostTools) setTurn(ctx context.Context) {
	if t == nil {
		return
	}
	var sc trace.SpanContext
	if ctx != nil {
		sc = trace.SpanContextFromContext(ctx)
	}
	next := &turnCalls{}
	next.ended, next.end = context.WithCancel(context.Background())
	t.mu.Lock()
	t.turn = sc
	prev := t.calls
	t.calls = next
	t.mu.Unlock()
	if prev == nil {
		return
	}
	prev.end() // the turn before ended: its calls end with it, and record so before it returns
	done := make(chan struct{})
	go func() { prev.flight.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(callsWait):
	}
}

// Server returns exo's tools as an MCP server named name.
func (t *HostTools) Server(name string) *MCPServer {
	tools := func(ctx context.Context) []provider.Tool { return t.X.HostTools(ctx, t.Log.Session()) }
	return &MCPServer{Name: name, Version: "1", Tools: tools, Call: t.Call}
}

// Call runs one tool call and returns the text the agent gets back.
func (t *HostTools) Call(ctx context.Context, id, name string, args json.RawMessage) (string, bool) {
	if id == "" {
		// An agent that names no call id (the Gemini CLI): the call of the last answer it is.
		if id = t.Log.HostCall(name, args, answerWait); id == "" {
			id = "exo_" + randomHex(8)
		}
	} else {
		t.Log.WaitAnswer(id, answerWait)
	}
	t.Log.CountTool()
	t.mu.Lock()
	sc, calls := t.turn, t.calls
	if calls != nil {
		calls.flight.Add(1)
	}
	t.mu.Unlock()
	if sc.IsValid() && !trace.SpanContextFromContext(ctx).IsValid() {
		ctx = trace.ContextWithSpanContext(ctx, sc)
	}
	if calls != nil {
		defer calls.flight.Done()
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(calls.ended, cancel)()
	}
	done, err := t.X.RunHostTool(ctx, t.Log.Session(), provider.ToolCall{ID: id, Name: name, Arguments: args})
	if err != nil {
		return "exo could not run " + name + ": " + err.Error(), true
	}
	return executor.ResultText(done), executor.ResultIsError(done)
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
