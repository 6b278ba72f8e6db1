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
}

// setTurn notes the running turn's span (a context without one: no turn runs).
func (t *HostTools) setTurn(ctx context.Context) {
	if t == nil {
		return
	}
	var sc trace.SpanContext
	if ctx != nil {
		sc = trace.SpanContextFromContext(ctx)
	}
	t.mu.Lock()
	t.turn = sc
	t.mu.Unlock()
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
	sc := t.turn
	t.mu.Unlock()
	if sc.IsValid() && !trace.SpanContextFromContext(ctx).IsValid() {
		ctx = trace.ContextWithSpanContext(ctx, sc)
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
