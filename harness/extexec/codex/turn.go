package codex

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"exo/harness/extexec"
	"exo/harness/provider"
)

// interruptGrace is how long Codex gets to end an interrupted turn before it is killed.
const interruptGrace = 15 * time.Second

// turnParams starts a turn with the prompt and its images (files in Codex's state folder, given
// as localImage inputs).
func (pr *proc) turnParams(prompt string, images ...string) map[string]any {
	input := []map[string]any{{"type": "text", "text": prompt, "text_elements": []any{}}}
	for _, p := range images {
		input = append(input, map[string]any{"type": "localImage", "path": p})
	}
	return map[string]any{"threadId": pr.thread, "input": input}
}

// imageFiles writes a prompt's images into Codex's home in its state folder (which it can
// read; the workspace's copy may be outside what it sees) and returns their paths.
func (pr *proc) imageFiles(images []provider.Image) ([]string, error) {
	var out []string
	for _, im := range images {
		rel := filepath.Join(filepath.Base(pr.ss.Dirs.Home), "exo-images", im.Artifact+"."+strings.TrimPrefix(im.MediaType, "image/"))
		if err := pr.ss.Dirs.WriteFile(rel, im.Data); err != nil {
			return nil, fmt.Errorf("give codex the prompt's image: %w", err)
		}
		out = append(out, filepath.Join(pr.ss.Dirs.Root, rel))
	}
	return out, nil
}

// TakesImages says Codex takes images in a prompt (localImage inputs).
func (pr *proc) TakesImages() (bool, string) { return true, "" }

// Turn starts a Codex turn and translates its notifications into events until it completes.
func (pr *proc) Turn(ctx context.Context, t *extexec.Turn, prompt string) error {
	pr.rpc.SetContext(ctx)
	defer pr.rpc.SetContext(context.Background())
	images, err := pr.imageFiles(t.Images())
	if err != nil {
		return err
	}
	turnID, err := pr.startTurn(prompt, images...)
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
func (pr *proc) startTurn(prompt string, images ...string) (string, error) {
	raw, err := pr.rpc.Call(context.Background(), "turn/start", pr.turnParams(prompt, images...), startTimeout)
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
