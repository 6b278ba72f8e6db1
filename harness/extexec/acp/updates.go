package acp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec"
	"exo/harness/provider"
)

// toolCalls tracks the agent's tool calls through a session.
type toolCalls struct {
	mu       sync.Mutex
	calls    map[string]*toolCall
	text     strings.Builder // the current answer's text
	msgID    string          // the message it belongs to
	fresh    bool            // a tool call came since: the next text starts a new answer
	lastMsg  string
	started  map[string]bool
	finished map[string]bool
}

// toolCall is what the agent said of one tool call.
type toolCall struct {
	ID        string          `json:"toolCallId"`
	Title     string          `json:"title"`
	Kind      string          `json:"kind"`
	Status    string          `json:"status"`
	RawInput  json.RawMessage `json:"rawInput"`
	RawOutput json.RawMessage `json:"rawOutput"`
	Content   []struct {
		Type    string `json:"type"`
		Content *struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Path    string  `json:"path"`
		NewText *string `json:"newText"`
	} `json:"content"`
	Locations []struct {
		Path string `json:"path"`
	} `json:"locations"`
	Meta struct {
		ClaudeCode struct {
			ToolName string `json:"toolName"`
		} `json:"claudeCode"`
	} `json:"_meta"`
	// callID and modelName are the model's call the agent's call resolved to (see
	// proc.resolve), when its id is one the agent made up.
	callID, modelName string
}

func newToolCalls() *toolCalls {
	return &toolCalls{calls: map[string]*toolCall{}, started: map[string]bool{}, finished: map[string]bool{}}
}

// merge folds a tool_call or tool_call_update into what is known of the call.
func (tc *toolCalls) merge(u toolCall) *toolCall {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	c := tc.calls[u.ID]
	if c == nil {
		c = &toolCall{ID: u.ID}
		tc.calls[u.ID] = c
	}
	if u.Title != "" {
		c.Title = u.Title
	}
	if u.Kind != "" {
		c.Kind = u.Kind
	}
	if u.Status != "" {
		c.Status = u.Status
	}
	if len(u.RawInput) > 0 && string(u.RawInput) != "{}" {
		c.RawInput = u.RawInput
	}
	if len(u.RawOutput) > 0 {
		c.RawOutput = u.RawOutput
	}
	if len(u.Content) > 0 {
		c.Content = u.Content
	}
	if len(u.Locations) > 0 {
		c.Locations = u.Locations
	}
	if u.Meta.ClaudeCode.ToolName != "" {
		c.Meta = u.Meta
	}
	cp := *c
	return &cp
}

// mark records that a call was started (and, with done, finished); it reports the state before.
func (tc *toolCalls) mark(id string, done bool) (wasStarted, wasFinished bool) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	wasStarted, wasFinished = tc.started[id], tc.finished[id]
	tc.started[id] = true
	if done {
		tc.finished[id] = true
	}
	return wasStarted, wasFinished
}

// chunk adds a piece of answer text: a new message (another id, or text after a tool call)
// starts the answer again.
func (tc *toolCalls) chunk(msgID *string, text string) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if text == "" {
		tc.fresh = true
		return
	}
	if tc.fresh || msgID != nil && *msgID != tc.msgID {
		tc.text.Reset()
		tc.fresh = false
	}
	if msgID != nil {
		tc.msgID = *msgID
	}
	tc.text.WriteString(text)
}

// lastText returns the turn's last answer text.
func (tc *toolCalls) lastText() string {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.text.Len() > 0 {
		tc.lastMsg = tc.text.String()
		tc.text.Reset()
	}
	return tc.lastMsg
}

// name is the tool's name as the agent knows it.
func (c *toolCall) name() string {
	if c.Meta.ClaudeCode.ToolName != "" {
		return c.Meta.ClaudeCode.ToolName
	}
	if c.modelName != "" {
		return c.modelName
	}
	if c.Title != "" {
		return c.Title
	}
	return c.Kind
}

// exos reports whether the call is one of exo's own tools (recorded as exo runs it).
func (c *toolCall) exos() bool {
	return strings.HasPrefix(c.Meta.ClaudeCode.ToolName, "mcp__exo__") || strings.HasPrefix(c.Title, "mcp__exo__") ||
		strings.HasPrefix(c.modelName, "mcp_exo_") // the Gemini CLI's name of an MCP server's tool
}

// id is the call's id in exo's log: the model's, where the agent's resolved to it.
func (c *toolCall) id() string {
	if c.callID != "" {
		return c.callID
	}
	return c.ID
}

// resolve notes the model's call an agent's call stands for (see extexec.Log.ModelCall): its id,
// its name, and its arguments where the agent gave none (the Gemini CLI sends none).
func (tc *toolCalls) resolve(id string, m harness.ToolCall) *toolCall {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	c := tc.calls[id]
	if c == nil {
		c = &toolCall{ID: id}
		tc.calls[id] = c
	}
	c.callID, c.modelName = m.ID, m.Name
	if len(c.RawInput) == 0 || string(c.RawInput) == "{}" {
		c.RawInput = m.Arguments
	}
	cp := *c
	return &cp
}

// resolve looks up the model's call an agent's call stands for, once the answer that made it
// is recorded; c is returned as it was when there is none.
func (pr *proc) resolve(c *toolCall) *toolCall {
	if c.callID != "" {
		return c
	}
	pr.ss.Log.WaitAnswer(c.ID, answerWait)
	m, ok := pr.ss.Log.ModelCall(c.ID)
	if !ok {
		return c
	}
	return pr.tools.resolve(c.ID, m)
}

// fromUpdate reads any of the SDK's tool call shapes (tool_call, tool_call_update, the call in
// a permission request) as what exo tracks of a call.
func fromUpdate(v any) toolCall {
	var u toolCall
	if b, err := json.Marshal(v); err == nil {
		_ = json.Unmarshal(b, &u)
	}
	return u
}

// update records one session update into the running turn: answer text and thoughts stream live, tool calls
// the agent ran itself are recorded when they end (exo's own tools record themselves). Updates
// outside a turn (late ones) are dropped, and so is a loaded session's playback of its
// history, wherever it falls (see playback).
func (pr *proc) update(u sdk.SessionUpdate) {
	if pr.besides(u) || pr.pb.replayed(u) {
		return
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	t := pr.turn
	if t == nil {
		return
	}
	pr.pb.live(u)
	switch {
	case u.AgentMessageChunk != nil:
		if b := u.AgentMessageChunk.Content.Text; b != nil {
			pr.tools.chunk(u.AgentMessageChunk.MessageId, b.Text)
			t.Delta(b.Text)
		}
	case u.AgentThoughtChunk != nil:
		if b := u.AgentThoughtChunk.Content.Text; b != nil && !pr.a.reasoningFromEndpoint() {
			t.Thinking(b.Text)
		}
	case u.ToolCall != nil:
		pr.tools.chunk(nil, "") // the answer is the text after the last tool call
		if c := fromUpdate(u.ToolCall); c.ID != "" {
			pr.toolUpdate(t, pr.tools.merge(c))
		}
	case u.ToolCallUpdate != nil:
		if c := fromUpdate(u.ToolCallUpdate); c.ID != "" {
			pr.toolUpdate(t, pr.tools.merge(c))
		}
	}
}

// toolUpdate records a finished tool call of the agent's own.
func (pr *proc) toolUpdate(t *extexec.Turn, c *toolCall) {
	if c.exos() || c.Status != "completed" && c.Status != "failed" {
		return
	}
	started, finished := pr.tools.mark(c.ID, true)
	if finished {
		return
	}
	c = pr.resolve(c)
	nc := pr.nativeCall(c)
	if !started { // a use the agent allowed itself: record it
		nc.Ran = true
		if _, _, err := pr.a.x.StartNative(context.Background(), pr.ss.ID, nc); err != nil {
			return
		}
		t.CountTool()
	}
	_ = pr.a.x.FinishNative(pr.ss.ID, harness.ToolCompleted{CallID: nc.Call.ID, Tool: nc.Call.Name, Output: c.output(), IsError: c.Status == "failed"},
		c.Kind == "edit" || c.Kind == "delete" || c.Kind == "move" || c.Kind == "execute" || c.Kind == "other")
}

// output is the text of a finished call's result.
func (c *toolCall) output() string {
	var s string
	if json.Unmarshal(c.RawOutput, &s) == nil && s != "" {
		return s
	}
	var parts []string
	for _, x := range c.Content {
		if x.Content != nil && x.Content.Text != "" {
			parts = append(parts, x.Content.Text)
		}
		if x.Type == "diff" && x.NewText != nil {
			parts = append(parts, "wrote "+x.Path)
		}
	}
	if len(parts) == 0 && len(c.RawOutput) > 0 {
		return string(c.RawOutput)
	}
	return strings.Join(parts, "\n")
}

// nativeCall describes an agent's tool call for exo's checks, by its ACP kind.
func (pr *proc) nativeCall(c *toolCall) executor.NativeCall {
	var in struct {
		Command  string `json:"command"`
		FilePath string `json:"file_path"`
		Path     string `json:"path"`
	}
	_ = json.Unmarshal(c.RawInput, &in)
	var paths []string
	for _, l := range c.Locations {
		paths = append(paths, l.Path)
	}
	args := c.RawInput
	if len(args) == 0 || string(args) == "{}" { // codex-acp gives only the paths: the approval shows them
		args = json.RawMessage("{}")
		if len(paths) > 0 {
			args, _ = json.Marshal(map[string][]string{"paths": paths})
		}
	}
	nc := executor.NativeCall{Call: provider.ToolCall{ID: c.id(), Name: c.name(), Arguments: args}, Policy: strings.ToLower(c.name())}
	if len(paths) == 0 {
		for _, p := range []string{in.FilePath, in.Path} {
			if p != "" {
				paths = append(paths, p)
			}
		}
	}
	switch c.Kind {
	case "execute":
		nc.Policy, nc.Command = "bash", in.Command
	case "edit", "delete", "move":
		nc.Policy, nc.Writes = "edit_file", paths
	case "read", "search":
		nc.Policy, nc.Reads = "read_file", paths
	}
	return nc
}
