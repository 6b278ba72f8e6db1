package api

import (
	"fmt"
)

// TypeModelSide records a model call an external agent made beside the session's conversation:
// a session title, a compaction summary, a subagent's step, a quota check. It counts in the
// session's usage, cost and budgets, but it is no answer in the conversation: it never enters
// the prompt view, the conversation pane or a step count.
const TypeModelSide = "model.side"

// Purposes of side calls, as exo reads them from the request (a label, not a guarantee).
const (
	SideTitle      = "title"
	SideCompaction = "compaction"
	SideSubagent   = "subagent"
	SideQuota      = "quota"
	SideOther      = "other"
)

// sideTextCap bounds the answer text a side call keeps.
const sideTextCap = 2 << 10

// ModelSide is one side call of an agent: what it was for, its answer (cut to 2 KiB), usage,
// cost and timing, or the error it ended with.
type ModelSide struct {
	Model   string `json:"model"`
	Purpose string `json:"purpose"`
	Text    string `json:"text,omitempty"`
	// ToolCalls names the tools the answer called (a subagent's step).
	ToolCalls  []string `json:"tool_calls,omitempty"`
	Usage      Usage    `json:"usage"`
	Cost       float64  `json:"cost,omitempty"`
	TTFTMs     int64    `json:"ttft_ms,omitempty"`
	DurationMs int64    `json:"duration_ms,omitempty"`
	StopReason string   `json:"stop_reason,omitempty"`
	// Error is set when the call failed (Kind says how); a side call's failure does not fail
	// the turn.
	Error string `json:"error,omitempty"`
	Kind  string `json:"kind,omitempty"`
}

// CutSideText cuts a side call's answer text to what ModelSide keeps.
func CutSideText(s string) string {
	if len(s) <= sideTextCap {
		return s
	}
	cut := sideTextCap
	for cut > 0 && s[cut]&0xC0 == 0x80 { // not in the middle of a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

func init() {
	RegisterType(TypeModelSide, typed(FamilyModel, func(p *ModelSide) string {
		if p.Error != "" {
			return fmt.Sprintf("%s call by %s failed: %s", p.Purpose, p.Model, oneLine(p.Error))
		}
		s := fmt.Sprintf("%s call by %s", p.Purpose, p.Model)
		if p.Text != "" {
			s += ": " + clip(oneLine(p.Text), 80)
		}
		return s + fmt.Sprintf(" [%d/%d tok]", p.Usage.Input, p.Usage.Output)
	}))
	stateAppliers[TypeModelSide] = func(s *SessionState, _ Event, p any) {
		c := p.(*ModelSide)
		s.SideCalls++
		s.Usage = s.Usage.Add(c.Usage)
		s.Cost += c.Cost
	}
}
