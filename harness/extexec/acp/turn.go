package acp

import (
	"context"
	"encoding/base64"
	"errors"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"exo/harness/extexec"
	"exo/harness/provider"
)

// interruptGrace is how long the agent gets to end a cancelled turn before it is killed.
const interruptGrace = 15 * time.Second

// promptDone is the end of a session/prompt call.
type promptDone struct {
	res sdk.PromptResponse
	err error
}

// prompt sends session/prompt; its answer comes when the turn ends (after the SDK has delivered
// every session update the agent sent before it).
func (pr *proc) prompt(text string, images ...provider.Image) <-chan promptDone {
	ch := make(chan promptDone, 1)
	blocks := []sdk.ContentBlock{sdk.TextBlock(text)}
	for _, im := range images {
		blocks = append(blocks, sdk.ImageBlock(base64.StdEncoding.EncodeToString(im.Data), im.MediaType))
	}
	go func() {
		res, err := pr.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: pr.session, Prompt: blocks})
		ch <- promptDone{res: res, err: err}
	}()
	return ch
}

// Turn sends the prompt and records the agent's session updates until its answer; Ctrl-C sends
// session/cancel (and kills the agent if it does not stop). The agent's session is saved for a
// later process once the turn is over (and forgotten while it runs).
func (pr *proc) Turn(ctx context.Context, t *extexec.Turn, text string) error {
	pr.forget()
	err := pr.run(ctx, t, text)
	pr.flushUsage()
	if err == nil {
		pr.save()
	}
	return err
}

// run is Turn's work.
func (pr *proc) run(ctx context.Context, t *extexec.Turn, text string) error {
	if pr.a.reasoningFromEndpoint() {
		t.ReasoningFromEndpoint()
	}
	pr.mu.Lock()
	pr.turn, pr.turnCtx, pr.opened = t, ctx, true
	pr.mu.Unlock()
	pr.flushQueued()
	defer pr.endTurn()
	text, pr.history = pr.history+text, ""
	t.Expect(text)
	done := pr.prompt(text, t.Images()...)
	cancel := ctx.Done()
	var deadline <-chan time.Time
	for {
		select {
		case <-pr.conn.Done():
			select { // the answer may have come just before the agent exited
			case d := <-done:
				if d.err == nil {
					return pr.finish(t, d)
				}
			case <-time.After(100 * time.Millisecond):
			}
			return pr.died(t, errors.New("its connection closed"))
		case d := <-done:
			if d.err != nil {
				select {
				case <-pr.conn.Done():
					return pr.died(t, d.err)
				default:
				}
				pr.endTurn()
				t.EndMessage()
				return t.Finish(extexec.AgentResult{Subtype: "error", IsError: true, Text: "the agent failed the prompt: " + d.err.Error(),
					Usage: pr.takeUsage()})
			}
			if err := pr.finish(t, d); err != nil {
				return err
			}
			msg, again, err := t.GoOn()
			if err != nil || !again {
				return err
			}
			pr.mu.Lock()
			pr.turn = t
			pr.mu.Unlock()
			done = pr.prompt(msg)
		case <-cancel:
			cancel = nil
			t.Interrupt()
			deadline = time.After(interruptGrace)
			_ = pr.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: pr.session})
		case <-deadline:
			pr.p.Kill()
			deadline = nil
		}
	}
}

// endTurn stops recording session updates into the turn (late ones are dropped).
func (pr *proc) endTurn() {
	pr.pb.endTurn()
	pr.mu.Lock()
	pr.turn, pr.turnCtx = nil, nil
	pr.mu.Unlock()
}

// finish records the prompt's answer.
func (pr *proc) finish(t *extexec.Turn, d promptDone) error {
	pr.endTurn()
	t.EndMessage()
	reason := string(d.res.StopReason)
	text := pr.tools.lastText()
	// An agent may end its turn as cancelled by itself: codex-acp's only way to refuse a
	// permission stops Codex's turn. Only a turn the user interrupted is a cancel.
	cancelled := d.res.StopReason == sdk.StopReasonCancelled && t.Interrupted()
	if d.res.StopReason == sdk.StopReasonCancelled && !cancelled && text == "" {
		text = "(the agent stopped its turn itself, after a refusal)"
	}
	return t.Finish(extexec.AgentResult{Subtype: reason, StopReason: reason, Text: text,
		Cancelled: cancelled, IsError: d.res.StopReason == sdk.StopReasonRefusal, Usage: pr.takeUsage()})
}

// died records that the agent exited during the turn.
func (pr *proc) died(t *extexec.Turn, cause error) error {
	pr.endTurn()
	if !pr.p.Exited() {
		pr.p.Kill()
	}
	<-pr.p.Done()
	code, sig := pr.p.ExitStatus()
	return t.Died(cause, code, sig, pr.p.StderrTail())
}

// TakesImages says whether the agent takes images in a prompt: when its initialize answer
// offered promptCapabilities.image.
func (pr *proc) TakesImages() (bool, string) {
	if pr.images {
		return true, ""
	}
	return false, "the agent does not offer image prompts (promptCapabilities.image)"
}
