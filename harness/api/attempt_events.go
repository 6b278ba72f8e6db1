package api

import (
	"fmt"
	"strings"
)

// Attempt event types: several attempts at one prompt, each a sibling forked at the same event
// (see attempts.go). attempts.started is recorded in the session the attempts start from and
// lists the set's members; attempt.joined is each member's first own event after its
// session.forked; attempt.checked holds the outcome of the set's check command run in the
// member's sandbox; attempt.ended closes a member (done, failed, cancelled, budget or
// interrupted); attempt.kept is the first event of the branch the original session moves onto
// when one attempt is kept. The scoreboard is folded from these and the members' own events.
const (
	TypeAttemptsStarted = "attempts.started"
	TypeAttemptJoined   = "attempt.joined"
	TypeAttemptChecked  = "attempt.checked"
	TypeAttemptEnded    = "attempt.ended"
	TypeAttemptKept     = "attempt.kept"
)

// SettingAttemptSet is the session setting naming the attempt set a member belongs to (an
// index over the members' attempt.joined events; forks of a member drop it).
const SettingAttemptSet = "attempt_set"

// Attempt outcomes (AttemptEnded.Outcome, AttemptRow.Status once ended).
const (
	AttemptRunning     = "running"
	AttemptChecking    = "checking"
	AttemptDone        = "done"
	AttemptFailed      = "failed"
	AttemptCancelled   = "cancelled"
	AttemptOverBudget  = "budget"
	AttemptInterrupted = "interrupted"
)

// AttemptMember names one attempt of a set: its session and the executor and model it runs.
type AttemptMember struct {
	Session  string `json:"session"`
	Name     string `json:"name"`
	Executor string `json:"executor,omitempty"`
	Model    string `json:"model,omitempty"`
}

// AttemptBudget bounds an attempt set: per attempt (tokens, cost, seconds) and for the whole
// set; 0 is no bound.
type AttemptBudget struct {
	Tokens     float64 `json:"tokens,omitempty"`
	Cost       float64 `json:"cost,omitempty"`
	Seconds    float64 `json:"seconds,omitempty"`
	SetTokens  float64 `json:"set_tokens,omitempty"`
	SetCost    float64 `json:"set_cost,omitempty"`
	SetSeconds float64 `json:"set_seconds,omitempty"`
}

// AttemptsStarted records a set of attempts started from seq AtSeq of the session: the prompt
// each was sent, the check each is scored by and the members.
type AttemptsStarted struct {
	Set     string          `json:"set"`
	AtSeq   uint64          `json:"at_seq"`
	Prompt  string          `json:"prompt"`
	Check   string          `json:"check,omitempty"`
	Budget  AttemptBudget   `json:"budget,omitzero"`
	Members []AttemptMember `json:"members"`
	// Replay is set when the set replays a session's recorded prompts (exo replay).
	Replay bool `json:"replay,omitempty"`
}

// AttemptJoined records, in a member's own log, which set it belongs to and what it runs.
type AttemptJoined struct {
	Set        string `json:"set"`
	Origin     string `json:"origin"`
	OriginName string `json:"origin_name,omitempty"`
	AtSeq      uint64 `json:"at_seq"`
	Index      int    `json:"index"`
	Executor   string `json:"executor,omitempty"`
	Model      string `json:"model,omitempty"`
	Check      string `json:"check,omitempty"`
}

// AttemptChecked records the set's check command run in the member's sandbox once its turn
// ended: its exit status and its whole output as an artifact (Output keeps the tail).
type AttemptChecked struct {
	Set        string `json:"set"`
	Command    string `json:"command"`
	ExitCode   int    `json:"exit_code"`
	Killed     bool   `json:"killed,omitempty"`
	Artifact   string `json:"artifact,omitempty"`
	Output     string `json:"output,omitempty"`
	DurationMs int64  `json:"duration_ms"`
	Error      string `json:"error,omitempty"`
}

// Passed reports whether the check succeeded.
func (c *AttemptChecked) Passed() bool { return c.Error == "" && !c.Killed && c.ExitCode == 0 }

// AttemptEnded records that a member's attempt is over, and how.
type AttemptEnded struct {
	Set     string `json:"set"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
}

// AttemptKept records that an attempt was kept: the original session left its branch
// FromBranch (at AbandonedAt, still stored) for this one, which continues the kept attempt's
// history (branch Branch up to AtSeq), files included.
type AttemptKept struct {
	Set         string `json:"set"`
	Session     string `json:"session"`
	Name        string `json:"name"`
	Branch      string `json:"branch"`
	AtSeq       uint64 `json:"at_seq"`
	FromBranch  string `json:"from_branch"`
	AbandonedAt uint64 `json:"abandoned_at"`
}

// checkTail bounds the output an attempt.checked keeps in the log (the artifact has it all).
const checkTail = 2 << 10

// CheckTail returns the end of a check's output as attempt.checked keeps it.
func CheckTail(out string) string {
	if len(out) <= checkTail {
		return out
	}
	return "…" + strings.ToValidUTF8(out[len(out)-checkTail:], "")
}

func init() {
	RegisterType(TypeAttemptsStarted, typed(FamilySession, func(p *AttemptsStarted) string {
		names := make([]string, len(p.Members))
		for i, m := range p.Members {
			names[i] = m.Name
		}
		what := fmt.Sprintf("%d attempts", len(p.Members))
		if p.Replay {
			what = "replay"
		} else if len(p.Members) == 1 {
			what = "1 attempt"
		}
		return fmt.Sprintf("%s from @%d (%s): %s", what, p.AtSeq, p.Set, oneLine(strings.Join(names, ", ")))
	}))
	stateAppliers[TypeAttemptsStarted] = noticeApplier("")
	RegisterType(TypeAttemptJoined, typed(FamilySession, func(p *AttemptJoined) string {
		return fmt.Sprintf("attempt %d of %s from %s@%d: %s", p.Index+1, p.Set, p.OriginName, p.AtSeq, attemptRunner(p.Executor, p.Model))
	}))
	RegisterType(TypeAttemptChecked, typed(FamilyTool, func(p *AttemptChecked) string {
		switch {
		case p.Error != "":
			return "check could not run: " + oneLine(p.Error)
		case p.Passed():
			return fmt.Sprintf("check passed: %s", oneLine(p.Command))
		}
		return fmt.Sprintf("check failed (exit %d): %s", p.ExitCode, oneLine(p.Command))
	}))
	stateAppliers[TypeAttemptChecked] = noticeApplier("")
	RegisterType(TypeAttemptEnded, typed(FamilySession, func(p *AttemptEnded) string {
		if p.Reason != "" {
			return "attempt " + p.Outcome + ": " + oneLine(p.Reason)
		}
		return "attempt " + p.Outcome
	}))
	RegisterType(TypeAttemptKept, typed(FamilySession, func(p *AttemptKept) string {
		return fmt.Sprintf("kept attempt %s of %s (its history up to @%d, files included); left @%d", p.Name, p.Set, p.AtSeq, p.AbandonedAt)
	}))
	stateAppliers[TypeAttemptKept] = noticeApplier("")
}

// attemptRunner says which executor and model an attempt runs.
func attemptRunner(executor, model string) string {
	if executor == "" {
		executor = "default"
	}
	if model == "" {
		return executor
	}
	return executor + "·" + model
}
