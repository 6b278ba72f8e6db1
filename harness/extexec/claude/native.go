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
	mu        sync.Mutex
	uses      map[string]nativeUse // tool_use blocks seen in answers, by id
	started   map[string]bool      // recorded with tool.started
	finished  map[string]bool      // recorded with tool.completed
	decisions map[string]*decision // exo's decision on each use, by id
}

// decision is exo's answer about one tool use, made once.
type decision struct {
	once sync.Once
	p    permission
}

// nativeUse is a tool_use block of one of Claude's own tools.
type nativeUse struct {
	name  string
	input json.RawMessage
}

func newNativeCalls() *nativeCalls {
	return &nativeCalls{uses: map[string]nativeUse{}, started: map[string]bool{}, finished: map[string]bool{}, decisions: map[string]*decision{}}
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

// decide returns exo's decision on a tool use, made once: exo's PreToolUse hook and
// can_use_tool may both ask about the same use.
func (n *nativeCalls) decide(id string, make func() permission) permission {
	if id == "" {
		return make()
	}
	n.mu.Lock()
	d := n.decisions[id]
	if d == nil {
		d = &decision{}
		n.decisions[id] = d
	}
	n.mu.Unlock()
	d.once.Do(func() { d.p = make() })
	return d.p
}

// preToolUseHook is the callback id of exo's PreToolUse hook, registered in initialize.
const preToolUseHook = "exo_pre_tool_use"

// preToolUseHooks registers exo's hook for every tool use (no matcher): Claude asks it before
// each one, the uses it would allow itself (read-only Bash, reads in the workspace) included,
// and an error or a malformed answer blocks the use. Its timeout (seconds) outlasts any approval.
var preToolUseHooks = map[string]any{"PreToolUse": []map[string]any{{
	"hookCallbackIds": []string{preToolUseHook}, "timeout": 7 * 24 * 3600, "onFailure": "block"}}}

// hook answers exo's PreToolUse hook with exo's decision on the use: allow (then Claude asks
// nothing more), or deny with the reason, which Claude gets as the tool's result.
func (pr *proc) hook(ctx context.Context, r controlRequest) map[string]any {
	var in hookInput
	if r.CallbackID != preToolUseHook {
		return map[string]any{} // not exo's: nothing to say
	}
	p := permission{Message: "exo could not read this tool use, so it is refused"}
	if json.Unmarshal(r.Input, &in) == nil && in.HookEventName == "PreToolUse" && in.ToolName != "" {
		p = pr.canUse(ctx, controlRequest{ToolName: in.ToolName, Input: in.ToolInput, ToolUseID: firstNonEmpty(in.ToolUseID, r.ToolUseID)})
	}
	out := map[string]any{"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": p.Message}
	if p.Allow {
		out["permissionDecision"], out["permissionDecisionReason"] = "allow", "approved by exo"
	}
	return map[string]any{"hookSpecificOutput": out}
}

// canUse answers Claude's permission request for a tool use (from can_use_tool or exo's
// PreToolUse hook), once per use.
func (pr *proc) canUse(ctx context.Context, r controlRequest) permission {
	return pr.native.decide(r.ToolUseID, func() permission { return pr.judge(ctx, r) })
}

// judge runs exo's checks and approval on a tool use: exo's own tools are judged when they run;
// Claude's are refused unless native tools are on, then recorded, checked against the workspace,
// the scope, secrets and the network setting, and put to the approval policy.
func (pr *proc) judge(ctx context.Context, r controlRequest) permission {
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
	case "TodoWrite": // only the plan, which exo shows as a checklist
		nc.Policy = "todo_write"
	case "Glob", "Grep":
		if in.Path != "" {
			nc.Reads = []string{in.Path}
		}
	}
	return nc
}
