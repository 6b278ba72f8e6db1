package claude

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec"
	"exo/harness/provider"
)

// hostPrefix is how Claude names the tools of exo's in-band MCP server.
const hostPrefix = "mcp__exo__"

// answerWait bounds how long a tool use waits for the answer that made it to be recorded.
const answerWait = 10 * time.Second

// nativeCalls tracks Claude's own tool calls (native tools) through a turn.
type nativeCalls struct {
	mu       sync.Mutex
	uses     map[string]nativeUse // tool_use blocks seen in answers, by id
	started  map[string]bool      // recorded with tool.started
	finished map[string]bool      // recorded with tool.completed
}

// nativeUse is a tool_use block of one of Claude's own tools.
type nativeUse struct {
	name  string
	input json.RawMessage
}

func newNativeCalls() *nativeCalls {
	return &nativeCalls{uses: map[string]nativeUse{}, started: map[string]bool{}, finished: map[string]bool{}}
}

// assistant remembers the native tool uses of an answer.
func (n *nativeCalls) assistant(raw json.RawMessage) {
	var m chatMessage
	if json.Unmarshal(raw, &m) != nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, b := range m.blocks() {
		if b.Type == "tool_use" && !strings.HasPrefix(b.Name, hostPrefix) {
			n.uses[b.ID] = nativeUse{name: b.Name, input: b.Input}
		}
	}
}

// mark records that a call was started (and, with done, finished).
func (n *nativeCalls) mark(id string, done bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.started[id] = true
	if done {
		n.finished[id] = true
	}
}

// state says whether a call was started and finished.
func (n *nativeCalls) state(id string) (use nativeUse, known, started, finished bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	use, known = n.uses[id]
	return use, known, n.started[id], n.finished[id]
}

// canUse answers Claude's permission request for a tool use.
func (pr *proc) canUse(ctx context.Context, r controlRequest) permission {
	if strings.HasPrefix(r.ToolName, hostPrefix) {
		return permission{Allow: true} // exo's approval policy applies when the tool runs
	}
	if !pr.a.opts.NativeTools {
		return permission{Message: "exo runs the tools of this session: use the mcp__exo__ tools"}
	}
	pr.ss.Log.WaitAnswer(r.ToolUseID, answerWait)
	nc := nativeCall(r.ToolUseID, r.ToolName, r.Input)
	if reason := pr.networkRefusal(r.ToolName); reason != "" {
		nc.Ran = true // recorded, not asked: it is refused
		pr.refuseNative(nc, reason)
		return permission{Message: reason}
	}
	ok, why, err := pr.a.x.StartNative(ctx, pr.ss.ID, nc)
	pr.native.mark(r.ToolUseID, false)
	pr.ss.Log.CountTool()
	if err != nil {
		why = "exo could not check this tool use: " + err.Error()
	}
	if err != nil || !ok {
		pr.finishNative(harness.ToolCompleted{CallID: r.ToolUseID, Tool: r.ToolName, Output: why, IsError: true}, false)
		return permission{Message: why}
	}
	return permission{Allow: true, UpdatedInput: r.Input}
}

// refuseNative records a native call refused before it started.
func (pr *proc) refuseNative(nc executor.NativeCall, reason string) {
	if _, _, err := pr.a.x.StartNative(context.Background(), pr.ss.ID, nc); err == nil {
		pr.native.mark(nc.Call.ID, false)
		pr.ss.Log.CountTool()
		pr.finishNative(harness.ToolCompleted{CallID: nc.Call.ID, Tool: nc.Call.Name, Output: reason, IsError: true}, false)
	}
}

// networkRefusal refuses Claude's web tools when the session has no network.
func (pr *proc) networkRefusal(tool string) string {
	if tool != "WebFetch" && tool != "WebSearch" {
		return ""
	}
	s, err := pr.a.h.Session(pr.ss.ID)
	if err == nil && s.Settings["network"] == "on" {
		return ""
	}
	return "refused by exo: this session has no network access"
}

// finishNative records a native call's result.
func (pr *proc) finishNative(done harness.ToolCompleted, mayChange bool) {
	pr.native.mark(done.CallID, true)
	_ = pr.a.x.FinishNative(pr.ss.ID, done, mayChange)
}

// toolResults records the results of Claude's own tool calls from a user message.
func (pr *proc) toolResults(t *extexec.Turn, raw json.RawMessage) error {
	var m chatMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	for _, b := range m.blocks() {
		if b.Type != "tool_result" {
			continue
		}
		use, known, started, finished := pr.native.state(b.ToolUseID)
		if !known || finished {
			continue // exo's own tool (recorded as it ran) or a refusal already recorded
		}
		if !started { // a use Claude allowed itself (a read in the workspace): record it
			nc := nativeCall(b.ToolUseID, use.name, use.input)
			nc.Ran = true
			if _, _, err := pr.a.x.StartNative(context.Background(), pr.ss.ID, nc); err != nil {
				return err
			}
			t.CountTool()
		}
		pr.finishNative(harness.ToolCompleted{CallID: b.ToolUseID, Tool: use.name, Output: resultText(b.Content), IsError: b.IsError}, mutating[use.name])
	}
	return nil
}

// mutating lists Claude's tools that may change files.
var mutating = map[string]bool{"Bash": true, "Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

// nativeCall describes one of Claude's tool uses for exo's checks.
func nativeCall(id, name string, input json.RawMessage) executor.NativeCall {
	var in struct {
		Command      string `json:"command"`
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Path         string `json:"path"`
	}
	_ = json.Unmarshal(input, &in)
	nc := executor.NativeCall{Call: provider.ToolCall{ID: id, Name: name, Arguments: input}, Policy: strings.ToLower(name)}
	switch name {
	case "Bash":
		nc.Policy, nc.Command = "bash", in.Command
	case "Write":
		nc.Policy, nc.Writes = "write_file", []string{in.FilePath}
	case "Edit", "MultiEdit":
		nc.Policy, nc.Writes = "edit_file", []string{in.FilePath}
	case "NotebookEdit":
		nc.Policy, nc.Writes = "edit_file", []string{in.NotebookPath}
	case "Read":
		nc.Policy, nc.Reads = "read_file", []string{in.FilePath}
	case "Glob", "Grep":
		if in.Path != "" {
			nc.Reads = []string{in.Path}
		}
	}
	return nc
}
