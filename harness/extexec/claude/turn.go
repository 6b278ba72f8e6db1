package claude

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"exo/harness/extexec"
)

// interruptGrace is how long Claude gets to end an interrupted turn before it is killed.
const interruptGrace = 15 * time.Second

// Turn sends the prompt and translates Claude's messages into events until its result.
func (pr *proc) Turn(ctx context.Context, t *extexec.Turn, prompt string) error {
	pr.conn.SetContext(ctx)
	defer pr.conn.SetContext(context.Background())
	if err := pr.p.Send(userLine(prompt, t.Images()...)); err != nil {
		return pr.died(t, err)
	}
	done := ctx.Done()
	var deadline <-chan time.Time
	for {
		msgs, closed := pr.conn.Take()
		for _, m := range msgs {
			if end, err := pr.handle(t, m); end || err != nil {
				return err
			}
		}
		if closed {
			return pr.died(t, nil)
		}
		select {
		case <-pr.conn.Ready():
		case <-done:
			done = nil
			t.Interrupt()
			deadline = time.After(interruptGrace)
			go func() { _, _ = pr.conn.request("interrupt", nil, interruptGrace) }()
		case <-deadline:
			pr.p.Kill() // it did not stop in time: the closed stream ends the turn
			deadline = nil
		}
	}
}

// handle applies one message; end is true when the turn is over.
func (pr *proc) handle(t *extexec.Turn, line []byte) (end bool, err error) {
	var env envelope
	if json.Unmarshal(line, &env) != nil {
		return false, nil
	}
	switch env.Type {
	case "stream_event":
		if env.ParentToolUseID == nil {
			pr.streamEvent(t, env.Event)
		}
	case "assistant":
		pr.native.assistant(env.Message)
	case "user":
		return false, pr.toolResults(t, env.Message)
	case "result":
		var r resultMessage
		_ = json.Unmarshal(line, &r)
		pr.conn.WaitHandlers(30 * time.Second)
		if err := t.Finish(agentResult(&r)); err != nil {
			return true, err
		}
		msg, again, err := t.GoOn()
		if err != nil || !again {
			return true, err
		}
		_ = pr.p.Send(userLine(msg)) // on failure the stream closes next: the turn ends as with a dead claude
	}
	return false, nil
}

// agentResult reads Claude's result message.
func agentResult(r *resultMessage) extexec.AgentResult {
	return extexec.AgentResult{Subtype: r.Subtype, IsError: r.IsError || r.Subtype != "success" && r.Subtype != "error_during_execution",
		Text: firstNonEmpty(r.Result, strings.Join(r.Errors, "; ")), NumTurns: r.NumTurns, DurationMs: r.DurationMs, APIMs: r.DurationAPIMs,
		AgentCost: r.TotalCostUSD, StopReason: r.StopReason, Denials: len(r.PermissionDenials),
		Cancelled: r.Subtype == "error_during_execution" && !r.IsError}
}

// streamEvent shows answer text and thinking live.
func (pr *proc) streamEvent(t *extexec.Turn, raw json.RawMessage) {
	var ev streamEvent
	if json.Unmarshal(raw, &ev) != nil {
		return
	}
	switch {
	case ev.Type == "content_block_delta" && ev.Delta != nil && ev.Delta.Type == "text_delta":
		t.Delta(ev.Delta.Text)
	case ev.Type == "content_block_delta" && ev.Delta != nil && ev.Delta.Type == "thinking_delta":
		t.Thinking(ev.Delta.Thinking)
	case ev.Type == "message_stop":
		t.EndMessage()
	}
}

// died records that Claude exited during the turn.
func (pr *proc) died(t *extexec.Turn, cause error) error {
	pr.conn.CancelAll()
	pr.conn.WaitHandlers(30 * time.Second)
	<-pr.p.Done()
	code, sig := pr.p.ExitStatus()
	return t.Died(cause, code, sig, pr.p.StderrTail())
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// TakesImages says Claude Code takes images in a prompt: stream-json user messages carry the
// Messages API's base64 image blocks.
func (pr *proc) TakesImages() (bool, string) { return true, "" }
