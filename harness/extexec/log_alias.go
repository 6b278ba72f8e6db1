package extexec

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"exo/harness"
)

// Call ids an agent makes up. exo records a model answer's tool calls under the ids the model
// gave, or ids it makes up where the model gave none (Gemini 2.5 models give none). An agent
// may then use ids of its own for the same calls: the Gemini CLI names a call it got without an
// id NAME_TIME_N in the history it sends back, and NAME__ID in its ACP tool calls and
// permission requests. So that the calls' approvals and results land on the call the log holds
// (and the conversation folds as one), the Log keeps the last answer's calls in order and
// resolves the agent's ids to them: by the id itself, by an alias learnt before, by position
// (the history the agent sends back holds the answer's calls in order), and, for a call the
// agent announces before sending anything back, by name in order of the answer.

// answerCall is one tool call of the conversation's last answer: its recorded id, the name the
// agent knows it by (before exo's renaming of its own tools), and its arguments.
type answerCall struct {
	id, raw string
	args    json.RawMessage
}

// noteAnswer keeps an answer's calls for resolution (l.mu held); raw are the names as the model
// sent them.
func (l *Log) noteAnswer(calls []harness.ToolCall, raw []string) {
	l.order = l.order[:0]
	l.alias, l.taken, l.hostTaken = map[string]string{}, map[string]bool{}, map[string]bool{}
	for i, c := range calls {
		l.order = append(l.order, answerCall{id: c.ID, raw: raw[i], args: c.Arguments})
	}
}

// resolveResults maps the ids of the results a request carries to recorded call ids (l.mu
// held): each known id as it is, else an alias, else by position when the request's last model
// content (prev) holds as many calls as the last answer.
func (l *Log) resolveResults(results, prev []string) []string {
	if len(prev) == len(l.order) {
		for i, id := range prev {
			if id != "" && !l.lastCalls[id] {
				l.alias[id] = l.order[i].id
			}
		}
	}
	out := make([]string, len(results))
	for i, id := range results {
		out[i] = id
		if a, ok := l.alias[id]; ok && !l.lastCalls[id] {
			out[i] = a
		}
	}
	return out
}

// ModelCall resolves the id an agent gives a tool call it runs itself (an ACP tool call, a
// permission request) to the call the log holds, with the name the model gave it and its
// arguments; name is the tool's name when the agent's id carries it (NAME__ID), else "". It
// reports false when the id stands for no call of the last answer.
func (l *Log) ModelCall(agentID string) (harness.ToolCall, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	find := func(id string) (answerCall, bool) {
		for _, c := range l.order {
			if c.id == id {
				return c, true
			}
		}
		return answerCall{}, false
	}
	name, bare, named := strings.Cut(agentID, "__")
	for _, id := range []string{agentID, l.alias[agentID], bare, l.alias[bare]} {
		if c, ok := find(id); ok && id != "" {
			return l.take(agentID, bare, c), true
		}
	}
	if !named {
		return harness.ToolCall{}, false
	}
	for _, c := range l.order {
		if c.raw == name && !l.taken[c.id] {
			return l.take(agentID, bare, c), true
		}
	}
	return harness.ToolCall{}, false
}

// take notes that the agent's ids stand for call c and returns it (l.mu held).
func (l *Log) take(agentID, bare string, c answerCall) harness.ToolCall {
	l.taken[c.id] = true
	l.alias[agentID] = c.id
	if bare != "" {
		l.alias[bare] = c.id
	}
	return harness.ToolCall{ID: c.id, Name: c.raw, Arguments: c.args}
}

// HostCall finds the call of the last answer that an agent's call of exo's tool name with args
// is (an MCP tools/call carries no call id): the first one not yet run by that name with those
// arguments, waiting for the answer to be recorded (at most timeout); "" when there is none.
func (l *Log) HostCall(name string, args json.RawMessage, timeout time.Duration) string {
	stop := time.AfterFunc(timeout, func() {
		l.mu.Lock()
		l.cond.Broadcast()
		l.mu.Unlock()
	})
	defer stop.Stop()
	deadline := time.Now().Add(timeout)
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		for _, c := range l.order {
			if !l.hostTaken[c.id] && harness.ExoToolName(c.raw) == name && sameJSON(c.args, args) {
				l.hostTaken[c.id] = true
				return c.id
			}
		}
		if l.inflight == 0 || !time.Now().Before(deadline) {
			return ""
		}
		l.cond.Wait()
	}
}

// sameJSON reports whether two JSON values are the same once compacted (an agent may re-encode
// the arguments it got).
func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	if bytes.Equal(ca.Bytes(), cb.Bytes()) {
		return true
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}
