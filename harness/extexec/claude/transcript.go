package claude

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"time"

	"exo/harness"
	"exo/harness/extexec"
	"exo/harness/provider"
)

// A forked, rewound or restarted session gives Claude the conversation as exo's log has it: the
// prompt view of the branch (the same messages exo's own executor would send) written as a
// Claude Code transcript, which `claude --resume ID` then loads. Nothing after the event the
// branch stops at can reach Claude, because it was never written.

// projectSlug is the folder name Claude keeps a working directory's transcripts under:
// every character that is not a letter or a digit becomes '-'.
var slugUnsafe = regexp.MustCompile(`[^A-Za-z0-9]`)

// transcriptPath is where Claude looks for session id's transcript when run in cwd.
func transcriptPath(configDir, cwd, id string) string {
	return filepath.Join(configDir, "projects", slugUnsafe.ReplaceAllString(cwd, "-"), id+".jsonl")
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// transcriptLine is one entry of a Claude Code transcript.
type transcriptLine struct {
	ParentUUID  *string        `json:"parentUuid"`
	IsSidechain bool           `json:"isSidechain"`
	Type        string         `json:"type"`
	Message     map[string]any `json:"message"`
	UUID        string         `json:"uuid"`
	Timestamp   string         `json:"timestamp"`
	UserType    string         `json:"userType"`
	CWD         string         `json:"cwd"`
	SessionID   string         `json:"sessionId"`
	Version     string         `json:"version,omitempty"`
}

// writeTranscript writes msgs as session id's transcript for cwd, with model as the answers'
// model, and exo's tools (exoTools) by the names Claude knows them (bash → mcp__exo__bash; the
// log holds exo's names whichever executor called them). Consecutive messages of one role are merged, tool results go in user messages, and a
// tool call without a result gets one saying it was interrupted (the API needs every call
// answered).
func writeTranscript(dirs extexec.Dirs, cwd, id, model, version string, msgs []provider.Message, exoTools map[string]bool) error {
	rel, err := filepath.Rel(dirs.Root, transcriptPath(dirs.Config, cwd, id))
	if err != nil {
		return fmt.Errorf("write the transcript for claude: %w", err)
	}
	var w bytes.Buffer
	enc := json.NewEncoder(&w)
	var parent *string
	now := time.Now().UTC()
	for i, m := range turns(msgs, exoTools) {
		u := newUUID()
		line := transcriptLine{ParentUUID: parent, Type: m.role, UUID: u, UserType: "external", CWD: cwd, SessionID: id, Version: version,
			Timestamp: now.Add(time.Duration(i) * time.Millisecond).Format("2006-01-02T15:04:05.000Z")}
		line.Message = map[string]any{"role": m.role, "content": m.blocks}
		if m.role == "assistant" {
			line.Message["id"], line.Message["type"], line.Message["model"] = "msg_exo_"+u[:8], "message", model
			line.Message["stop_reason"], line.Message["stop_sequence"] = m.stop, nil
			line.Message["usage"] = map[string]int{"input_tokens": 0, "output_tokens": 0}
		}
		if err := enc.Encode(line); err != nil {
			return fmt.Errorf("write the transcript for claude: %w", err)
		}
		parent = &line.UUID
	}
	// Through the state folder's root: the folder is claude's to write in, and a link it put
	// there must not lead exo's write out of it.
	if err := dirs.WriteFile(rel, w.Bytes()); err != nil {
		return fmt.Errorf("write the transcript for claude: %w", err)
	}
	return nil
}

// turn is one message of the transcript.
type turn struct {
	role   string
	blocks []contentBlock
	stop   string
}

// turns maps exo's prompt view onto alternating user and assistant messages, exo's tools named
// as Claude knows them.
func turns(msgs []provider.Message, exoTools map[string]bool) []turn {
	var out []turn
	add := func(role string, bs ...contentBlock) {
		if n := len(out); n > 0 && out[n-1].role == role {
			out[n-1].blocks = append(out[n-1].blocks, bs...)
			return
		}
		out = append(out, turn{role: role, blocks: bs})
	}
	open := map[string]bool{}
	closeOpen := func() {
		for _, id := range sortedKeys(open) {
			add("user", contentBlock{Type: "tool_result", ToolUseID: id, Content: jsonString("[no result: the call was interrupted]"), IsError: true})
		}
		clear(open)
	}
	for _, m := range msgs {
		switch m.Role {
		case provider.RoleAssistant:
			closeOpen()
			var bs []contentBlock
			if m.Text != "" {
				bs = append(bs, contentBlock{Type: "text", Text: m.Text})
			}
			for _, c := range m.ToolCalls {
				name := c.Name
				if exoTools[name] {
					name = harness.AgentToolName(name)
				}
				bs = append(bs, contentBlock{Type: "tool_use", ID: c.ID, Name: name, Input: inputObject(c.Arguments)})
				open[c.ID] = true
			}
			if len(bs) > 0 {
				add("assistant", bs...)
			}
		case provider.RoleTool:
			if open[m.ToolCallID] {
				delete(open, m.ToolCallID)
				add("user", contentBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: jsonString(m.Text), IsError: m.IsError})
			}
		default:
			if m.Text != "" {
				closeOpen()
				add("user", contentBlock{Type: "text", Text: m.Text})
			}
		}
	}
	closeOpen()
	for i := range out {
		if out[i].role == "assistant" {
			out[i].stop = "end_turn"
			for _, b := range out[i].blocks {
				if b.Type == "tool_use" {
					out[i].stop = "tool_use"
				}
			}
		}
	}
	if len(out) > 0 && out[0].role != "user" {
		out = append([]turn{{role: "user", blocks: []contentBlock{{Type: "text", Text: "(the conversation so far)"}}}}, out...)
	}
	return out
}

// inputObject returns tool arguments as a JSON object ("{}" when they are not one).
func inputObject(a json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(a, &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return a
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func sortedKeys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }
