package codex

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec"
	"exo/harness/provider"
)

// besides tracks what Codex says beside the conversation in a session: the last diff and
// warnings recorded (Codex repeats them), and its last account of usage in the turn.
type besides struct {
	mu       sync.Mutex
	diff     string
	warnings map[string]bool
	usage    *harness.AgentUsage
}

// planParams are turn/plan/updated's.
type planParams struct {
	Explanation string `json:"explanation"`
	Plan        []struct {
		Step   string `json:"step"`
		Status string `json:"status"`
	} `json:"plan"`
}

// planRecord reads turn/plan/updated as agent.plan (Codex's inProgress is in_progress).
func planRecord(agent string, raw json.RawMessage) (harness.AgentPlan, bool) {
	var p planParams
	if json.Unmarshal(raw, &p) != nil {
		return harness.AgentPlan{}, false
	}
	rec := harness.AgentPlan{Executor: agent, Explanation: p.Explanation, Steps: []harness.PlanStep{}}
	for _, s := range p.Plan {
		st := s.Status
		if st == "inProgress" {
			st = "in_progress"
		}
		rec.Steps = append(rec.Steps, harness.PlanStep{Text: s.Step, Status: st})
	}
	return rec, true
}

// usageRecord reads thread/tokenUsage/updated as agent.usage: the thread's totals, the last
// call's input as the context in use, and the model's window.
func usageRecord(agent string, raw json.RawMessage) (harness.AgentUsage, bool) {
	type counts struct {
		Total     int `json:"totalTokens"`
		Input     int `json:"inputTokens"`
		Cached    int `json:"cachedInputTokens"`
		Output    int `json:"outputTokens"`
		Reasoning int `json:"reasoningOutputTokens"`
	}
	var p struct {
		TokenUsage *struct {
			Total  counts `json:"total"`
			Last   counts `json:"last"`
			Window int    `json:"modelContextWindow"`
		} `json:"tokenUsage"`
	}
	if json.Unmarshal(raw, &p) != nil || p.TokenUsage == nil {
		return harness.AgentUsage{}, false
	}
	u := p.TokenUsage
	return harness.AgentUsage{Executor: agent, Context: u.Last.Total, Window: u.Window, Input: u.Total.Input, Output: u.Total.Output,
		Cached: u.Total.Cached, Reasoning: u.Total.Reasoning}, true
}

// diffRecord reads turn/diff/updated as agent.diff (cut when huge).
func diffRecord(agent string, raw json.RawMessage) (harness.AgentDiff, bool) {
	var p struct {
		Diff string `json:"diff"`
	}
	if json.Unmarshal(raw, &p) != nil || strings.TrimSpace(p.Diff) == "" {
		return harness.AgentDiff{}, false
	}
	return harness.AgentDiff{Executor: agent, Diff: harness.CutDiff(p.Diff), Files: harness.DiffFiles(p.Diff)}, true
}

// warningRecord reads configWarning as agent.warning.
func warningRecord(agent string, raw json.RawMessage) (harness.AgentWarning, bool) {
	var p struct {
		Summary string          `json:"summary"`
		Details json.RawMessage `json:"details"`
	}
	if json.Unmarshal(raw, &p) != nil || p.Summary == "" {
		return harness.AgentWarning{}, false
	}
	w := harness.AgentWarning{Executor: agent, Summary: p.Summary}
	var d string
	if json.Unmarshal(p.Details, &d) == nil {
		w.Details = d
	} else if len(p.Details) > 0 && string(p.Details) != "null" {
		w.Details = string(p.Details)
	}
	return w, true
}

// besideNotification records a notification that is not the conversation; it reports whether n
// was one. A repeated diff or warning is not recorded again; usage is kept for the turn's end.
func (pr *proc) besideNotification(n extexec.Notification) bool {
	name, b := pr.a.Name(), pr.besides
	var rec harness.Record
	switch n.Method {
	case "turn/plan/updated":
		p, ok := planRecord(name, n.Params)
		if !ok {
			return true
		}
		rec = harness.MustRecord(harness.TypeAgentPlan, harness.ActorHarness, p)
	case "turn/diff/updated":
		d, ok := diffRecord(name, n.Params)
		b.mu.Lock()
		same := d.Diff == b.diff
		b.diff = d.Diff
		b.mu.Unlock()
		if !ok || same {
			return true
		}
		rec = harness.MustRecord(harness.TypeAgentDiff, harness.ActorHarness, d)
	case "configWarning":
		w, ok := warningRecord(name, n.Params)
		b.mu.Lock()
		seen := b.warnings[w.Summary]
		b.warnings[w.Summary] = true
		b.mu.Unlock()
		if !ok || seen {
			return true
		}
		rec = harness.MustRecord(harness.TypeAgentWarning, harness.ActorHarness, w)
	case "thread/tokenUsage/updated":
		if u, ok := usageRecord(name, n.Params); ok {
			b.mu.Lock()
			b.usage = &u
			b.mu.Unlock()
		}
		return true
	default:
		return false
	}
	_ = pr.ss.Log.Append(rec)
	return true
}

// takeUsage returns Codex's last account of usage in the turn, recorded with the turn's end (nil
// when none came).
func (pr *proc) takeUsage() *harness.AgentUsage {
	b := pr.besides
	b.mu.Lock()
	defer b.mu.Unlock()
	u := b.usage
	b.usage = nil
	return u
}

// agentItem is an MCP tool call or a web search Codex made itself (item/completed).
type agentItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Status    string          `json:"status"`
	Result    *struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	DurationMs int64  `json:"durationMs"`
	Query      string `json:"query"`
	Action     *struct {
		Type  string `json:"type"`
		Query string `json:"query"`
		URL   string `json:"url"`
	} `json:"action"`
}

// call is the item as a tool call of its own and its result: an MCP tool as mcp:SERVER/TOOL,
// a web search as web_search with the query (or the page it opened).
func (it agentItem) call() (name string, args json.RawMessage, out string, failed bool) {
	if it.Type == "webSearch" {
		a := map[string]string{"query": it.Query}
		if it.Action != nil && it.Action.URL != "" {
			a["url"] = it.Action.URL
		}
		args, _ = json.Marshal(a)
		return "web_search", args, "searched: " + firstNonEmpty(it.Query, a["url"]), false
	}
	args = it.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	var parts []string
	if it.Result != nil {
		for _, c := range it.Result.Content {
			if c.Text != "" {
				parts = append(parts, c.Text)
			}
		}
	}
	if it.Error != nil {
		parts, failed = append(parts, it.Error.Message), true
	}
	return "mcp:" + it.Server + "/" + it.Tool, args, strings.Join(parts, "\n"), failed || it.Status == "failed"
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// agentItemCompleted records an MCP tool call or web search Codex made (it asks no approval for
// them): tool.started and tool.completed, under the item's id.
func (pr *proc) agentItemCompleted(t *extexec.Turn, raw json.RawMessage) {
	var it agentItem
	if json.Unmarshal(raw, &it) != nil || it.ID == "" {
		return
	}
	name, args, out, failed := it.call()
	nc := executor.NativeCall{Call: provider.ToolCall{ID: it.ID, Name: name, Arguments: args}, Policy: name, Ran: true}
	if _, _, err := pr.a.x.StartNative(context.Background(), pr.ss.ID, nc); err != nil {
		return
	}
	t.CountTool()
	pr.finish(harness.ToolCompleted{CallID: it.ID, Tool: name, Output: out, IsError: failed, DurationMs: it.DurationMs}, false)
}
