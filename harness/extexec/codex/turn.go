package codex

import (
	"context"
	"encoding/json"
	"time"

	"exo/harness/extexec"
)

// interruptGrace is how long Codex gets to end an interrupted turn before it is killed.
const interruptGrace = 15 * time.Second

// turnParams starts a turn with the prompt.
func (pr *proc) turnParams(prompt string) map[string]any {
	return map[string]any{"threadId": pr.thread, "input": []map[string]any{{"type": "text", "text": prompt, "text_elements": []any{}}}}
}

// Turn starts a Codex turn and translates its notifications into events until it completes.
func (pr *proc) Turn(ctx context.Context, t *extexec.Turn, prompt string) error {
	pr.rpc.SetContext(ctx)
	defer pr.rpc.SetContext(context.Background())
	turnID, err := pr.startTurn(prompt)
	if err != nil {
		return pr.died(t, err)
	}
	done := ctx.Done()
	var deadline <-chan time.Time
	for {
		ns, closed := pr.rpc.Take()
		for _, n := range ns {
			end, next, err := pr.handle(t, n, turnID)
			if err != nil || end {
				return err
			}
			if next != "" {
				turnID = next
			}
		}
		if closed {
			return pr.died(t, nil)
		}
		select {
		case <-pr.rpc.Ready():
		case <-done:
			done = nil
			t.Interrupt()
			deadline = time.After(interruptGrace)
			id := turnID
			go func() {
				_, _ = pr.rpc.Call(context.Background(), "turn/interrupt", map[string]any{"threadId": pr.thread, "turnId": id}, interruptGrace)
			}()
		case <-deadline:
			pr.p.Kill()
			deadline = nil
		}
	}
}

// startTurn sends turn/start and returns the turn's id.
func (pr *proc) startTurn(prompt string) (string, error) {
	raw, err := pr.rpc.Call(context.Background(), "turn/start", pr.turnParams(prompt), startTimeout)
	if err != nil {
		return "", err
	}
	var r struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	_ = json.Unmarshal(raw, &r)
	return r.Turn.ID, nil
}

// notification params read by the turn.
type itemParams struct {
	TurnID string          `json:"turnId"`
	ItemID string          `json:"itemId"`
	Delta  string          `json:"delta"`
	Item   json.RawMessage `json:"item"`
	Turn   *struct {
		ID         string `json:"id"`
		Status     string `json:"status"`
		DurationMs int64  `json:"durationMs"`
		Error      *struct {
			Message string `json:"message"`
		} `json:"error"`
	} `json:"turn"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	WillRetry bool `json:"willRetry"`
}

// handle applies one notification; end is true when the turn is over, next is the id of a turn
// a Stop hook started.
func (pr *proc) handle(t *extexec.Turn, n extexec.Notification, turnID string) (end bool, next string, err error) {
	if pr.besideNotification(n) {
		return false, "", nil
	}
	var p itemParams
	_ = json.Unmarshal(n.Params, &p)
	switch n.Method {
	case "item/agentMessage/delta":
		t.Delta(p.Delta)
	case "item/reasoning/summaryTextDelta", "item/reasoning/textDelta":
		t.Thinking(p.Delta)
	case "item/completed":
		pr.itemCompleted(t, p.Item)
	case "error":
		if p.Error != nil && !p.WillRetry {
			pr.lastError = p.Error.Message
		}
	case "turn/completed":
		if p.Turn == nil || p.Turn.ID != turnID {
			return false, "", nil
		}
		pr.rpc.WaitHandlers(30 * time.Second)
		if err := t.Finish(pr.result(p)); err != nil {
			return true, "", err
		}
		msg, again, err := t.GoOn()
		if err != nil || !again {
			return true, "", err
		}
		id, err := pr.startTurn(msg)
		if err != nil {
			return true, "", pr.died(t, err)
		}
		return false, id, nil
	}
	return false, "", nil
}

// result reads turn/completed.
func (pr *proc) result(p itemParams) extexec.AgentResult {
	r := extexec.AgentResult{Subtype: p.Turn.Status, DurationMs: p.Turn.DurationMs, Text: pr.lastMessage,
		Cancelled: p.Turn.Status == "interrupted", IsError: p.Turn.Status == "failed"}
	if r.IsError {
		r.Text = pr.lastError
		if p.Turn.Error != nil && p.Turn.Error.Message != "" {
			r.Text = p.Turn.Error.Message
		}
	}
	pr.lastMessage, pr.lastError = "", ""
	r.Usage = pr.takeUsage()
	return r
}

// itemCompleted ends an item: an answer's text, or one of Codex's own commands or file changes.
func (pr *proc) itemCompleted(t *extexec.Turn, raw json.RawMessage) {
	var it struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &it)
	switch it.Type {
	case "agentMessage":
		t.EndMessage()
		pr.lastMessage = it.Text
	case "commandExecution", "fileChange":
		pr.nativeCompleted(t, raw)
	case "mcpToolCall", "webSearch":
		pr.agentItemCompleted(t, raw)
	}
}

// died records that codex exited during the turn.
func (pr *proc) died(t *extexec.Turn, cause error) error {
	pr.rpc.CancelAll()
	pr.rpc.WaitHandlers(30 * time.Second)
	if cause != nil && !pr.p.Exited() {
		pr.p.Kill()
	}
	<-pr.p.Done()
	code, sig := pr.p.ExitStatus()
	return t.Died(cause, code, sig, pr.p.StderrTail())
}
