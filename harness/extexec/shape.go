package extexec

import (
	"encoding/json"
	"strings"

	"exo/harness"
)

// An agent's model traffic is not all conversation: besides the calls that carry the session's
// conversation on (the prompt exo sent, then each tool result back), agents ask the model for a
// session title (claude-agent-acp), a compaction summary (Claude Code's /compact and auto
// compaction), a subagent's steps (Claude's Task tool), a quota check. Those side calls cost
// tokens, so exo records them (model.side), but they are no answers in the conversation. The
// endpoint tells them apart by the request's relation to the conversation, read from the
// request body alone (callShape), against what the Log knows: the prompt exo sent this turn and
// the tool calls of the conversation's last answer.

// callShape is what the endpoint reads of a model request to place it.
type callShape struct {
	// lastText is the last text of the request's final user message (or input item), Claude's
	// <system-reminder> blocks skipped; userText is all the text of that message.
	lastText, userText string
	// results are the tool call ids whose results the final user message (or the trailing
	// input items) carries; extraText is set when text other than system reminders follows them.
	results   []string
	extraText bool
	// prevCalls are the ids of the calls in the request's last model message, in order, where
	// the wire gives them (Gemini: an agent may have made them up; see log_alias.go).
	prevCalls []string
	// tools counts the tools offered; system is the start of the system prompt (for the label),
	// or systemRaw the Messages system field, read only when a side call is labelled (Claude's
	// system prompt is long, and most calls are the conversation's).
	tools     int
	system    string
	systemRaw json.RawMessage
	maxTokens int
}

// reminderPrefix starts the text blocks Claude Code adds to user messages for itself.
const reminderPrefix = "<system-reminder>"

// anthropicShape reads a Messages request.
func anthropicShape(req callBody) callShape {
	sh := callShape{tools: req.count("tools"), maxTokens: req.int("max_tokens"), systemRaw: req.raw("system")}
	// The last message that is not a system message (Claude Code puts one with the environment
	// after the prompt when the model is not one of Anthropic's).
	msgs := req.items("messages")
	var last anthropicMsg
	for i := len(msgs) - 1; i >= 0; i-- {
		if json.Unmarshal([]byte(msgs[i].Raw), &last) != nil {
			return sh
		}
		if last.Role != "system" {
			break
		}
	}
	if last.Role != "user" {
		return sh
	}
	var texts []string
	for _, b := range blocksOf(last.Content) {
		switch {
		case b.Type == "tool_result":
			sh.results = append(sh.results, b.ToolUseID)
		case b.Type == "text" && strings.HasPrefix(strings.TrimSpace(b.Text), reminderPrefix):
		case b.Type == "text":
			texts = append(texts, b.Text)
			sh.lastText = b.Text
			sh.extraText = sh.extraText || len(sh.results) > 0
		}
	}
	sh.userText = strings.Join(texts, "\n")
	return sh
}

// responsesShape reads a Responses request: the trailing tool outputs, or the final user
// message.
func responsesShape(req callBody) callShape {
	sh := callShape{tools: req.count("tools"), maxTokens: req.int("max_output_tokens"), system: clipText(req.string("instructions"), 2048)}
	input := req.items("input")
	for i := len(input) - 1; i >= 0; i-- {
		var it responsesInput
		if json.Unmarshal([]byte(input[i].Raw), &it) != nil {
			break
		}
		if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
			sh.results = append(sh.results, it.CallID)
			continue
		}
		if len(sh.results) == 0 && (it.Type == "message" || it.Type == "") && it.Role == "user" {
			sh.userText = partsText(it.Content)
			sh.lastText = lastPart(it.Content)
		}
		break
	}
	return sh
}

// lastPart is the text of content's last part (content may be a string).
func lastPart(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i].Text != "" {
			return parts[i].Text
		}
	}
	return ""
}

// clipText keeps the first n bytes of s.
func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// placement is where the Log puts a call: on the conversation or beside it, and the label of a
// side call.
type placement struct {
	main    bool
	purpose string
}

// place decides whether a call carries the conversation on (l.mu held): it continues the last
// answer (the final user message holds results of that answer's tool calls and nothing else),
// or it sends the prompt exo sent this turn (the final user message ends with it; as the last
// text, or, for the turn's first call with tools offered, at the end of a text the agent wrapped
// around it), or it carries the turn on after Claude Code compacted the conversation. Anything
// else, and any call outside a turn (see EndTurn), is a side call.
func (l *Log) place(sh callShape) placement {
	if !l.inTurn {
		return placement{purpose: sidePurpose(sh)}
	}
	if len(sh.results) > 0 && !sh.extraText && l.answersLast(l.resolveResults(sh.results, sh.prevCalls)) {
		return placement{main: true}
	}
	if l.turnMain > 0 && len(sh.results) == 0 && sh.tools > 0 && strings.HasPrefix(strings.TrimSpace(sh.userText), continuedPrefix) {
		return placement{main: true}
	}
	p := strings.TrimSpace(l.prompt)
	if p != "" && len(sh.results) == 0 {
		last := strings.TrimSpace(sh.lastText)
		if last == p || l.turnMain == 0 && sh.tools > 0 && strings.HasSuffix(last, p) {
			return placement{main: true}
		}
	}
	return placement{purpose: sidePurpose(sh)}
}

// continuedPrefix starts the message Claude Code carries a conversation on with after it
// compacted it on its own in the middle of a turn (the summary, then "continue").
const continuedPrefix = "This session is being continued from a previous conversation"

// answersLast reports whether every id is a tool call of the conversation's last answer.
func (l *Log) answersLast(ids []string) bool {
	if len(l.lastCalls) == 0 {
		return false
	}
	for _, id := range ids {
		if !l.lastCalls[id] {
			return false
		}
	}
	return true
}

// sidePurpose labels a side call from its request.
func sidePurpose(sh callShape) string {
	system := sh.system
	if system == "" && len(sh.systemRaw) > 0 {
		system = clipText(textOf(sh.systemRaw), 2048)
	}
	low := strings.ToLower(system + "\n" + sh.lastText)
	switch {
	case sh.maxTokens == 1 || strings.TrimSpace(strings.ToLower(sh.userText)) == "quota":
		return harness.SideQuota
	case sh.tools == 0 && strings.Contains(low, "title"):
		return harness.SideTitle
	case strings.Contains(low, "summary") || strings.Contains(low, "summarize") || strings.Contains(low, "compact"):
		return harness.SideCompaction
	case sh.tools > 0:
		return harness.SideSubagent
	}
	return harness.SideOther
}
