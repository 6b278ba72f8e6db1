package executor

import (
	"encoding/json"
	"fmt"
	"strings"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/provider"
)

// View is the prompt-view projection of a branch: the messages the next model call sees. It is
// folded event by event, so building the next prompt costs work proportional to new events.
type View struct {
	Branch   string
	Head     uint64
	Messages []provider.Message
	// Tokens is the running estimate (a real tokenizer for OpenAI-family models) of the messages.
	Tokens int
	// Always lists tools the user approved for the rest of the session.
	Always map[string]bool

	model    string
	pending  map[string]bool // tool call ids of the last assistant message without results
	deferred []string        // user-side notes waiting for pending results
	// deferredImages are a prompt's images waiting, with its text, for pending results.
	deferredImages []provider.Image
	// meta runs parallel to Messages: where each message came from, for compaction.
	meta []msgMeta
	cur  uint64 // seq of the event being applied
	comp compactState
	// instr holds the instruction files in the prompt (instructions.loaded).
	instr instrState
}

// newView returns the empty view of a branch, counting tokens for model.
func newView(branch, model string) *View {
	return &View{Branch: branch, model: model, Always: map[string]bool{}, pending: map[string]bool{}}
}

// Apply folds one event into the view.
func (v *View) Apply(e harness.Event) {
	v.Head, v.cur = e.Seq, e.Seq
	p, err := harness.Decode(e)
	if err != nil {
		return
	}
	if v.applyLongRunning(e, p) {
		return
	}
	switch p := p.(type) {
	case *harness.InvocationReceived:
		v.turnStarted(e.Seq)
		v.userNote(p.Text + harness.AttachmentsText(p.Attachments))
		v.userImages(p.Attachments)
	case *api.PromptSteered:
		v.userNote(p.Text)
	case *harness.ModelCompleted:
		v.assistant(p)
	case *harness.ToolCompleted:
		v.toolResult(e, p)
	case *harness.ToolStarted:
		if e.Actor == harness.ActorUser {
			v.userNote(fmt.Sprintf("[the user ran in the sandbox: %s]", p.Summary))
		}
	case *harness.TaskCompleted:
		v.userNote(fmt.Sprintf("[background task %s finished: exit %d%s]\n%s", p.TaskID, p.ExitCode, killedNote(p.Killed), p.Tail))
	case *harness.PolicyViolation:
		v.userNote("[harness: policy " + p.Action + ": " + p.Rule + " " + p.Path + " " + p.Detail + "]")
	case *harness.TurnCancelled:
		if p.Hook != "" {
			v.userNote("[a " + p.Hook + " hook of the user's stopped the previous turn]")
			break
		}
		v.userNote("[the user cancelled the previous turn: " + p.Reason + "]")
	case *harness.TurnStepLimit:
		v.userNote(fmt.Sprintf("[harness: the previous turn stopped at its step limit (%d model calls); it was not finished]", p.Limit))
	case *harness.WorkspaceRestored:
		v.userNote(fmt.Sprintf("[harness: the workspace files were restored to how they were at event %d]", p.AtSeq))
	case *harness.InstructionsLoaded:
		v.instructionsLoaded(p)
	case *harness.ApprovalResolved:
		if p.Decision == "always" {
			v.Always[toolOfCall(v.Messages, p.CallID)] = true
		}
	}
}

func killedNote(k string) string {
	if k == "" {
		return ""
	}
	return ", killed: " + k
}

// add appends a message and counts its tokens.
func (v *View) add(m provider.Message) {
	v.addMeta(m, msgMeta{})
}

// addMeta appends a message with its origin and counts its tokens.
func (v *View) addMeta(m provider.Message, md msgMeta) {
	n := v.count(m.Text) + v.count(provider.ReasoningText(m.Reasoning))
	for _, c := range m.ToolCalls {
		n += v.count(c.Name) + v.count(string(c.Arguments))
	}
	md.seq, md.tokens = v.cur, n
	v.Messages = append(v.Messages, m)
	v.meta = append(v.meta, md)
	v.Tokens += n
	if m.Role == provider.RoleTool {
		v.comp.toolTokens += n
	}
}

// count estimates tokens of text for the view's model.
func (v *View) count(text string) int {
	n, _ := provider.CountTokens(v.model, text)
	return n
}

// userNote adds text on the user's side, merged into a preceding user message; while tool
// results are pending it waits so results stay right after their calls.
func (v *View) userNote(text string) {
	if len(v.pending) > 0 {
		v.deferred = append(v.deferred, text)
		return
	}
	if n := len(v.Messages); n > 0 && v.Messages[n-1].Role == provider.RoleUser {
		v.Messages[n-1].Text += "\n\n" + text
		k := v.count(text)
		v.Tokens += k
		v.meta[n-1].tokens += k
		return
	}
	v.add(provider.Message{Role: provider.RoleUser, Text: text})
}

// assistant adds a model answer with its reasoning and tool calls. The reasoning stays for
// the rest of the conversation, as recorded: DeepSeek refuses a request whose earlier
// tool-calling turns lost their reasoning_content, Anthropic and the Responses API use (or
// drop themselves) the thinking of earlier turns, and a prompt whose past changes loses the
// provider's prompt cache. Each request builder sends back what its API takes.
func (v *View) assistant(p *harness.ModelCompleted) {
	if p.Cut != "" {
		v.cutAnswer(p)
		return
	}
	m := provider.Message{Role: provider.RoleAssistant, Text: p.Text, Reasoning: p.Reasoning}
	v.flushPending("")
	for _, c := range p.ToolCalls {
		// exo's names: events recorded before agents' names were normalised hold mcp__exo__bash.
		m.ToolCalls = append(m.ToolCalls, provider.ToolCall{ID: c.ID, Name: harness.ExoToolName(c.Name), Arguments: c.Arguments})
		v.pending[c.ID] = true
	}
	v.add(m)
}

// cutAnswer adds an answer that was cut off as the text it had got to, without its reasoning
// (unfinished, unsigned: no API takes it back) or its begun calls (never run), followed by a
// note saying it was cut. An answer cut before any text leaves only the note.
func (v *View) cutAnswer(p *harness.ModelCompleted) {
	v.flushPending("")
	if p.Text != "" {
		v.add(provider.Message{Role: provider.RoleAssistant, Text: p.Text})
	}
	v.userNote(cutNote(p))
}

// toolResult adds a model tool call's result (user-run commands become notes).
func (v *View) toolResult(e harness.Event, p *harness.ToolCompleted) {
	text := resultText(p)
	if e.Actor == harness.ActorUser || !v.pending[p.CallID] {
		if e.Actor == harness.ActorUser {
			v.userNote("[output]\n" + text)
		}
		return
	}
	delete(v.pending, p.CallID)
	v.addMeta(provider.Message{Role: provider.RoleTool, ToolCallID: p.CallID, Text: text, IsError: isError(p)},
		msgMeta{tool: p.Tool, artifact: p.Artifact})
	if len(v.pending) == 0 {
		v.flushPending("")
	}
}

// flushPending closes calls that never got a result and releases deferred notes.
func (v *View) flushPending(reason string) {
	for id := range v.pending {
		v.add(provider.Message{Role: provider.RoleTool, ToolCallID: id, Text: "[no result: the call was interrupted" + reason + "]", IsError: true})
		delete(v.pending, id)
	}
	notes, ims := v.deferred, v.deferredImages
	v.deferred, v.deferredImages = nil, nil
	for _, n := range notes {
		v.userNote(n)
	}
	if len(ims) > 0 {
		last := len(v.Messages) - 1
		if last < 0 || v.Messages[last].Role != provider.RoleUser {
			v.add(provider.Message{Role: provider.RoleUser})
			last = len(v.Messages) - 1
		}
		v.Messages[last].Images = append(v.Messages[last].Images, ims...)
	}
}

// isError reports whether a tool result is a failure for the model.
func isError(p *harness.ToolCompleted) bool {
	return p.IsError || p.Interrupted || p.Killed != "" || (p.ExitCode != nil && *p.ExitCode != 0)
}

// resultText renders a tool result for the model.
func resultText(p *harness.ToolCompleted) string {
	var b strings.Builder
	b.WriteString(p.Output)
	if p.ExitCode != nil && p.Tool == "bash" {
		fmt.Fprintf(&b, "\n[exit code %d]", *p.ExitCode)
	}
	if p.Killed != "" {
		fmt.Fprintf(&b, "\n[killed: %s]", p.Killed)
	}
	if p.Truncated && p.Artifact != "" {
		fmt.Fprintf(&b, "\n[output cut: %d bytes in all; the full output is artifact %s]", p.TotalBytes, p.Artifact)
	}
	if p.Interrupted {
		b.WriteString("\n[interrupted: exo stopped before this call finished]")
	}
	return b.String()
}

// toolOfCall finds the tool name of a call id in the messages (newest first).
func toolOfCall(msgs []provider.Message, id string) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, c := range msgs[i].ToolCalls {
			if c.ID == id {
				return c.Name
			}
		}
	}
	return ""
}

// argsOf decodes tool arguments into dst, with an error the model can act on.
func argsOf(raw json.RawMessage, dst any) error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("arguments are not valid JSON for this tool: %v", err)
	}
	return nil
}
