package codex

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

// answerWait bounds how long an approval waits for the answer that made the call to be recorded.
const answerWait = 10 * time.Second

// nativeItems tracks Codex's own commands and file changes through a turn.
type nativeItems struct {
	mu       sync.Mutex
	items    map[string]codexItem // by item id, from item/started
	started  map[string]bool
	finished map[string]bool
}

// codexItem is the part of a command or file change item exo reads.
type codexItem struct {
	Type             string `json:"type"`
	ID               string `json:"id"`
	Command          string `json:"command"`
	Status           string `json:"status"`
	AggregatedOutput string `json:"aggregatedOutput"`
	ExitCode         *int   `json:"exitCode"`
	Changes          []struct {
		Path string          `json:"path"`
		Kind json.RawMessage `json:"kind"`
		Diff string          `json:"diff"`
	} `json:"changes"`
}

func newNativeItems() *nativeItems {
	return &nativeItems{items: map[string]codexItem{}, started: map[string]bool{}, finished: map[string]bool{}}
}

// observe remembers commands and file changes as they start (their approvals refer to them by id).
func (n *nativeItems) observe(no extexec.Notification) {
	if no.Method != "item/started" {
		return
	}
	var p struct {
		Item codexItem `json:"item"`
	}
	if json.Unmarshal(no.Params, &p) != nil || p.Item.Type != "commandExecution" && p.Item.Type != "fileChange" {
		return
	}
	n.mu.Lock()
	n.items[p.Item.ID] = p.Item
	n.mu.Unlock()
}

// get returns a started item and whether exo recorded its start and end.
func (n *nativeItems) get(id string) (codexItem, bool, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.items[id], n.started[id], n.finished[id]
}

// mark records that a call was started (and, with done, finished).
func (n *nativeItems) mark(id string, done bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.started[id] = true
	if done {
		n.finished[id] = true
	}
}

// request answers Codex's requests: exo's tools, and approvals of Codex's own actions.
func (pr *proc) request(ctx context.Context, method string, params json.RawMessage) (any, *extexec.RPCError) {
	switch method {
	case "item/tool/call":
		var p struct {
			CallID    string          `json:"callId"`
			Tool      string          `json:"tool"`
			Arguments json.RawMessage `json:"arguments"`
		}
		_ = json.Unmarshal(params, &p)
		text, isErr := pr.ss.Tools.Call(ctx, p.CallID, p.Tool, p.Arguments)
		return map[string]any{"contentItems": []map[string]any{{"type": "inputText", "text": text}}, "success": !isErr}, nil
	case "item/commandExecution/requestApproval", "item/fileChange/requestApproval":
		var p struct {
			ItemID  string `json:"itemId"`
			Command string `json:"command"`
		}
		_ = json.Unmarshal(params, &p)
		return map[string]any{"decision": pr.approve(ctx, p.ItemID, p.Command)}, nil
	}
	return nil, &extexec.RPCError{Code: -32601, Message: "exo does not answer " + method}
}

// approve asks exo's policy about one of Codex's commands or file changes.
func (pr *proc) approve(ctx context.Context, itemID, command string) string {
	it, _, _ := pr.native.get(itemID)
	nc := pr.nativeCall(itemID, it, command)
	if !pr.a.opts.NativeTools {
		pr.refuse(nc, "exo runs the tools of this session: use exo's tools (bash, write_file, edit_file…)")
		return "decline"
	}
	pr.ss.Log.WaitAnswer(itemID, answerWait)
	ok, why, err := pr.a.x.StartNative(ctx, pr.ss.ID, nc)
	pr.native.mark(itemID, false)
	pr.ss.Log.CountTool()
	if err != nil {
		why = "exo could not check this action: " + err.Error()
	}
	if err != nil || !ok {
		pr.finish(harness.ToolCompleted{CallID: itemID, Tool: nc.Call.Name, Output: why, IsError: true}, false)
		return "decline"
	}
	return "accept"
}

// refuse records a call refused without asking.
func (pr *proc) refuse(nc executor.NativeCall, reason string) {
	nc.Ran = true
	if _, _, err := pr.a.x.StartNative(context.Background(), pr.ss.ID, nc); err == nil {
		pr.native.mark(nc.Call.ID, false)
		pr.ss.Log.CountTool()
		pr.finish(harness.ToolCompleted{CallID: nc.Call.ID, Tool: nc.Call.Name, Output: reason, IsError: true}, false)
	}
}

// nativeCall describes a command or file change for exo's checks.
func (pr *proc) nativeCall(id string, it codexItem, command string) executor.NativeCall {
	if it.Type == "fileChange" {
		var paths []string
		for _, c := range it.Changes {
			paths = append(paths, c.Path)
		}
		args, _ := json.Marshal(map[string]any{"paths": paths})
		return executor.NativeCall{Call: provider.ToolCall{ID: id, Name: "apply_patch", Arguments: args}, Policy: "edit_file", Writes: paths}
	}
	if command == "" {
		command = it.Command
	}
	args, _ := json.Marshal(map[string]string{"command": command})
	return executor.NativeCall{Call: provider.ToolCall{ID: id, Name: "exec_command", Arguments: args}, Policy: "bash", Command: command}
}

// finish records a native call's result; a command or file change may have changed files.
func (pr *proc) finish(done harness.ToolCompleted, mayChange bool) {
	pr.native.mark(done.CallID, true)
	_ = pr.a.x.FinishNative(pr.ss.ID, done, mayChange)
}

// nativeCompleted records the end of one of Codex's commands or file changes.
func (pr *proc) nativeCompleted(t *extexec.Turn, raw json.RawMessage) {
	var it codexItem
	if json.Unmarshal(raw, &it) != nil {
		return
	}
	_, started, finished := pr.native.get(it.ID)
	if finished {
		return
	}
	nc := pr.nativeCall(it.ID, it, it.Command)
	if !started { // an action Codex allowed itself (a read-only command): record it
		nc.Ran = true
		if _, _, err := pr.a.x.StartNative(context.Background(), pr.ss.ID, nc); err != nil {
			return
		}
		t.CountTool()
	}
	out := it.AggregatedOutput
	if it.Type == "fileChange" {
		var b strings.Builder
		for _, c := range it.Changes {
			b.WriteString(c.Path + "\n" + c.Diff + "\n")
		}
		out = b.String()
	}
	if it.Status != "completed" {
		out = strings.TrimSpace(out + "\n[" + it.Status + "]")
	}
	pr.finish(harness.ToolCompleted{CallID: it.ID, Tool: nc.Call.Name, Output: out, ExitCode: it.ExitCode,
		IsError: it.Status != "completed"}, true)
}
