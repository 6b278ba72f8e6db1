// Command tinyagent is a minimal Agent Client Protocol agent for exo's tests of the client side:
// on each prompt it writes a file through fs/write_text_file, reads it back with
// fs/read_text_file, runs a command in a terminal, and answers with what it saw. It makes no
// model calls.
//
// With $TINYAGENT_PLAYBACK set it offers session/load: it keeps what it sent in its turns in
// $HOME, and a load plays that history back as session updates (each message's text whole,
// each tool call once, as the Gemini CLI does): "before" answering the load, "after" it (held
// until the next prompt comes, so that it reaches the client while that turn runs), or "none"
// (nothing played back).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

type msg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

var (
	out     = json.NewEncoder(os.Stdout)
	outMu   sync.Mutex
	pending = map[string]chan msg{}
	pmu     sync.Mutex
	next    int
	cwd     string

	playbackMode = os.Getenv("TINYAGENT_PLAYBACK")
	// held is a playback waiting for the next prompt (mode "after").
	held   []map[string]any
	heldMu sync.Mutex
)

// historyFile keeps a session's content updates as tinyagent sent them, one JSON line each.
func historyFile(session string) string {
	return filepath.Join(os.Getenv("HOME"), "tinyagent-"+session+".jsonl")
}

// keep appends a content update to the session's history.
func keep(session string, u map[string]any) {
	if playbackMode == "" {
		return
	}
	b, _ := json.Marshal(u)
	f, err := os.OpenFile(historyFile(session), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	f.Write(append(b, '\n'))
}

// playback is a session's history as a load plays it back: consecutive text chunks joined into
// one, a tool call's updates into one tool_call.
func playback(session string) []map[string]any {
	b, _ := os.ReadFile(historyFile(session))
	var out []map[string]any
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			out = append(out, map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text.String()}})
			text.Reset()
		}
	}
	for _, line := range strings.Split(string(b), "\n") {
		var u map[string]any
		if json.Unmarshal([]byte(line), &u) != nil {
			continue
		}
		switch u["sessionUpdate"] {
		case "agent_message_chunk":
			c, _ := u["content"].(map[string]any)
			t, _ := c["text"].(string)
			text.WriteString(t)
		case "tool_call":
			flush()
			out = append(out, u)
		}
	}
	flush()
	return out
}

func send(m any) {
	outMu.Lock()
	defer outMu.Unlock()
	out.Encode(m)
}

// call sends a request to the client and waits for its answer.
func call(method string, params any) msg {
	pmu.Lock()
	next++
	id := fmt.Sprint(next)
	ch := make(chan msg, 1)
	pending[id] = ch
	pmu.Unlock()
	send(map[string]any{"jsonrpc": "2.0", "id": next, "method": method, "params": params})
	return <-ch
}

func update(session string, u map[string]any) {
	switch u["sessionUpdate"] {
	case "agent_message_chunk", "tool_call":
		keep(session, u)
	}
	send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": session, "update": u}})
}

func say(session, text string) {
	update(session, map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}})
}

// modes are the session modes tinyagent offers: it starts in auto, where an agent would act
// without asking, and has an "ask" mode described as asking.
var modes = map[string]any{"currentModeId": "auto", "availableModes": []map[string]any{
	{"id": "auto", "name": "Auto", "description": "Acts without asking"},
	{"id": "careful", "name": "Careful", "description": "Always ask before making changes"},
	{"id": "plan", "name": "Plan", "description": "Plans first"},
}}

// updates sends the session updates beside the conversation, then ends the turn: usage and
// commands shaped as claude-agent-acp 0.101.0 sends them (../claude_acp_updates.jsonl), a plan
// and a mode switch as ACP v1 defines them (the Claude adapter sent neither in exo's tests).
func updates(id json.RawMessage, session string) {
	update(session, map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": "plan"})
	update(session, map[string]any{"sessionUpdate": "available_commands_update", "availableCommands": []map[string]any{
		{"name": "review", "description": "Review the changes", "input": nil}, {"name": "init", "description": "Write AGENTS.md"}}})
	update(session, map[string]any{"sessionUpdate": "plan", "entries": []map[string]any{
		{"content": "Read the code", "priority": "high", "status": "completed"},
		{"content": "Fix the bug", "priority": "medium", "status": "in_progress"},
		{"content": "Run the tests", "priority": "low", "status": "pending"}}})
	update(session, map[string]any{"sessionUpdate": "usage_update", "used": 3117, "size": 200000, "cost": map[string]any{"amount": 0.04723, "currency": "USD"}})
	say(session, "Planned.")
	send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"stopReason": "end_turn"}})
}

// toolTurn says it runs a tool, reports a shell call it ran itself, and says it did.
func toolTurn(id json.RawMessage, session string) {
	say(session, "I will run a tool.")
	update(session, map[string]any{"sessionUpdate": "tool_call", "toolCallId": "tiny-call-1", "title": "Shell", "kind": "execute",
		"status": "completed", "rawInput": map[string]any{"command": "echo tiny"},
		"content": []map[string]any{{"type": "content", "content": map[string]any{"type": "text", "text": "tiny\n"}}}})
	say(session, "Ran ")
	say(session, "it.")
	send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"stopReason": "end_turn"}})
}

// againTurn answers with the same words as the tool turn's last message.
func againTurn(id json.RawMessage, session string) {
	say(session, "Ran it.")
	send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"stopReason": "end_turn"}})
}

// prompt does the scripted work and answers the prompt request.
func prompt(id json.RawMessage, session string) {
	say(session, "Writing via the client. ")
	path := filepath.Join(cwd, "acp.txt")
	w := call("fs/write_text_file", map[string]any{"sessionId": session, "path": path, "content": "written by tinyagent\n"})
	if len(w.Error) > 0 {
		say(session, "write refused: "+string(w.Error)+" ")
	}
	r := call("fs/read_text_file", map[string]any{"sessionId": session, "path": path})
	var content struct {
		Content string `json:"content"`
	}
	json.Unmarshal(r.Result, &content)
	say(session, "Read back: "+content.Content)
	t := call("terminal/create", map[string]any{"sessionId": session, "command": "sh", "args": []string{"-c", "cat acp.txt; echo terminal-ok"}, "cwd": cwd})
	var term struct {
		TerminalID string `json:"terminalId"`
	}
	json.Unmarshal(t.Result, &term)
	call("terminal/wait_for_exit", map[string]any{"sessionId": session, "terminalId": term.TerminalID})
	o := call("terminal/output", map[string]any{"sessionId": session, "terminalId": term.TerminalID})
	var output struct {
		Output string `json:"output"`
	}
	json.Unmarshal(o.Result, &output)
	call("terminal/release", map[string]any{"sessionId": session, "terminalId": term.TerminalID})
	say(session, "Terminal said: "+output.Output)
	send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"stopReason": "end_turn"}})
}

func main() {
	scn := bufio.NewScanner(os.Stdin)
	scn.Buffer(nil, 16<<20)
	for scn.Scan() {
		var m msg
		if json.Unmarshal(scn.Bytes(), &m) != nil {
			continue
		}
		if m.Method == "" { // an answer to one of our requests
			pmu.Lock()
			ch := pending[string(m.ID)]
			delete(pending, string(m.ID))
			pmu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		switch m.Method {
		case "initialize":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"protocolVersion": 1,
				"agentCapabilities": map[string]any{"loadSession": playbackMode != ""}, "agentInfo": map[string]any{"name": "tinyagent", "version": "1.0"}, "authMethods": []any{}}})
		case "session/new":
			var p struct {
				Cwd string `json:"cwd"`
			}
			json.Unmarshal(m.Params, &p)
			cwd = p.Cwd
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"sessionId": "tiny-1", "modes": modes}})
		case "session/load":
			var p struct {
				SessionID string `json:"sessionId"`
				Cwd       string `json:"cwd"`
			}
			json.Unmarshal(m.Params, &p)
			if _, err := os.Stat(historyFile(p.SessionID)); err != nil {
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32603, "message": "no session " + p.SessionID}})
				continue
			}
			cwd = p.Cwd
			pb := playback(p.SessionID)
			switch playbackMode {
			case "before":
				for _, u := range pb {
					send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": p.SessionID, "update": u}})
				}
			case "after":
				heldMu.Lock()
				held = pb
				heldMu.Unlock()
			}
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"modes": modes}})
		case "session/set_mode":
			var p struct {
				ModeID string `json:"modeId"`
			}
			json.Unmarshal(m.Params, &p)
			modes["currentModeId"] = p.ModeID
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{}})
		case "session/prompt":
			var p struct {
				Prompt []struct {
					Text string `json:"text"`
				} `json:"prompt"`
			}
			json.Unmarshal(m.Params, &p)
			heldMu.Lock()
			for _, u := range held { // the playback, sent now: it reaches the client while the turn runs
				send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "tiny-1", "update": u}})
			}
			held = nil
			heldMu.Unlock()
			last := ""
			if len(p.Prompt) > 0 {
				last = p.Prompt[len(p.Prompt)-1].Text
			}
			switch {
			case strings.Contains(last, "run a tool"):
				go toolTurn(m.ID, "tiny-1")
				continue
			case strings.Contains(last, "say it again"):
				go againTurn(m.ID, "tiny-1")
				continue
			}
			if len(p.Prompt) > 0 && strings.Contains(p.Prompt[0].Text, "updates only") {
				go updates(m.ID, "tiny-1")
				continue
			}
			go prompt(m.ID, "tiny-1")
		case "session/cancel":
		default:
			if len(m.ID) > 0 {
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no " + m.Method}})
			}
		}
	}
}
