package api

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Attempts runs one prompt as several attempts side by side and scores them.
type Attempts interface {
	// StartAttempts forks one sibling per executor and model pair at req.Seq of a session,
	// sends each the prompt at once and returns the set; each attempt then runs, is checked and
	// ends on its own (one failing or cancelled never stops the others).
	StartAttempts(ctx context.Context, req AttemptsRequest) (AttemptSet, error)
	// AttemptSet returns a set's scoreboard, folded from its events: by set id, by a member's
	// session, or the newest set started from a session.
	AttemptSet(ctx context.Context, ref string) (AttemptSet, error)
	// KeepAttempt makes an attempt's history and files its original session's (a rewind onto
	// the attempt's branch: nothing is deleted) and archives the others when asked.
	KeepAttempt(ctx context.Context, req KeepRequest) (KeepResult, error)
	// Replay re-runs the user prompts a session recorded after req.From (0: its start), turn
	// by turn, in a fork at that point under another executor or model, answering approvals
	// as the original did for the same tool call; the set's Original row scores the original.
	Replay(ctx context.Context, req ReplayRequest) (AttemptSet, error)
}

// ReplayRequest replays a session's recorded prompts after From under Executor and Model.
type ReplayRequest struct {
	Session     string        `json:"session"`
	From        uint64        `json:"from,omitempty"`
	Executor    string        `json:"executor,omitempty"`
	Model       string        `json:"model,omitempty"`
	Check       string        `json:"check,omitempty"`
	Budget      AttemptBudget `json:"budget,omitzero"`
	AutoApprove bool          `json:"auto_approve,omitempty"`
}

// MaxAttempts bounds the attempts of one set.
const MaxAttempts = 16

// AttemptsRequest starts several attempts at one prompt from seq Seq (0: the head) of Session:
// one per pair of Executors (empty: the session's) and Models (empty: the session's).
type AttemptsRequest struct {
	Session   string        `json:"session"`
	Seq       uint64        `json:"seq,omitempty"`
	Executors []string      `json:"executors,omitempty"`
	Models    []string      `json:"models,omitempty"`
	Prompt    string        `json:"prompt"`
	Check     string        `json:"check,omitempty"`
	Budget    AttemptBudget `json:"budget,omitzero"`
	// AutoApprove approves every tool call of the attempts (exo run --yes); otherwise their
	// approvals are asked as any session's are.
	AutoApprove bool `json:"auto_approve,omitempty"`
}

// Pairs lists the executor and model pairs of a request, executors outermost.
func (r AttemptsRequest) Pairs() [][2]string {
	ex, ms := r.Executors, r.Models
	if len(ex) == 0 {
		ex = []string{""}
	}
	if len(ms) == 0 {
		ms = []string{""}
	}
	var out [][2]string
	for _, e := range ex {
		for _, m := range ms {
			out = append(out, [2]string{strings.TrimSpace(e), strings.TrimSpace(m)})
		}
	}
	return out
}

// AttemptSet is a set of attempts and its scoreboard.
type AttemptSet struct {
	ID         string        `json:"id"`
	Origin     string        `json:"origin"`
	OriginName string        `json:"origin_name"`
	AtSeq      uint64        `json:"at_seq"`
	Prompt     string        `json:"prompt"`
	Check      string        `json:"check,omitempty"`
	Budget     AttemptBudget `json:"budget,omitzero"`
	Started    time.Time     `json:"started"`
	// Kept names the member kept (its session id), if one was.
	Kept string       `json:"kept,omitempty"`
	Rows []AttemptRow `json:"rows"`
	// Replay is set on a replay's set; Original then scores the original run of the prompts
	// replayed (the session's events after AtSeq, up to the replay).
	Replay   bool        `json:"replay,omitempty"`
	Original *AttemptRow `json:"original,omitempty"`
}

// Done reports whether every attempt of the set has ended.
func (s AttemptSet) Done() bool {
	for _, r := range s.Rows {
		if r.Status == AttemptRunning || r.Status == AttemptChecking {
			return false
		}
	}
	return true
}

// AttemptRow is one attempt on the scoreboard: what it ran, how it ended and what it cost,
// counted over its own events (those after the fork).
type AttemptRow struct {
	Session  string `json:"session"`
	Name     string `json:"name"`
	Branch   string `json:"branch"`
	Executor string `json:"executor"`
	Model    string `json:"model"`
	Status   string `json:"status"`
	Reason   string `json:"reason,omitempty"`
	// Check is the check's outcome (nil: none ran).
	Check     *AttemptChecked `json:"check,omitempty"`
	Files     []string        `json:"files,omitempty"`
	Drift     float64         `json:"drift"`
	Steps     int             `json:"steps"`
	ToolCalls int             `json:"tool_calls"`
	Tokens    int             `json:"tokens"`
	Cost      float64         `json:"cost"`
	TTFTMs    int64           `json:"ttft_ms"`
	WallMs    int64           `json:"wall_ms"`
	Approvals int             `json:"approvals"`
	Kept      bool            `json:"kept,omitempty"`
}

// CheckText says how a row's check went: pass, fail N, - when none ran.
func (r AttemptRow) CheckText() string {
	switch {
	case r.Check == nil:
		return "-"
	case r.Check.Error != "":
		return "error"
	case r.Check.Passed():
		return "pass"
	case r.Check.Killed:
		return "killed"
	}
	return fmt.Sprintf("fail %d", r.Check.ExitCode)
}

// Runner names a row's executor and model as the siblings pane does (executor·model).
func (r AttemptRow) Runner() string { return attemptRunner(r.Executor, r.Model) }

// AttemptColumns are the scoreboard's columns, in order; each sorts (SortAttempts).
var AttemptColumns = []string{"name", "runner", "status", "check", "files", "drift", "steps", "tools", "tokens", "cost", "ttft", "wall", "approvals"}

// SortAttempts sorts rows by a column of AttemptColumns: text ascending, a check that passed
// first, numbers ascending (lower is better) except files and drift left as counted.
func SortAttempts(rows []AttemptRow, col string) error {
	key, ok := attemptKeys[col]
	if !ok {
		return fmt.Errorf("sort by %q: give one of %s: %w", col, strings.Join(AttemptColumns, ", "), ErrInvalid)
	}
	slices.SortStableFunc(rows, func(a, b AttemptRow) int { return key(a, b) })
	return nil
}

// checkRank orders checks: passed, failed, not run.
func checkRank(r AttemptRow) int {
	switch {
	case r.Check == nil:
		return 2
	case r.Check.Passed():
		return 0
	}
	return 1
}

var attemptKeys = map[string]func(a, b AttemptRow) int{
	"name":      func(a, b AttemptRow) int { return cmp.Compare(a.Name, b.Name) },
	"runner":    func(a, b AttemptRow) int { return cmp.Compare(a.Runner(), b.Runner()) },
	"status":    func(a, b AttemptRow) int { return cmp.Compare(a.Status, b.Status) },
	"check":     func(a, b AttemptRow) int { return cmp.Compare(checkRank(a), checkRank(b)) },
	"files":     func(a, b AttemptRow) int { return cmp.Compare(len(a.Files), len(b.Files)) },
	"drift":     func(a, b AttemptRow) int { return cmp.Compare(a.Drift, b.Drift) },
	"steps":     func(a, b AttemptRow) int { return cmp.Compare(a.Steps, b.Steps) },
	"tools":     func(a, b AttemptRow) int { return cmp.Compare(a.ToolCalls, b.ToolCalls) },
	"tokens":    func(a, b AttemptRow) int { return cmp.Compare(a.Tokens, b.Tokens) },
	"cost":      func(a, b AttemptRow) int { return cmp.Compare(a.Cost, b.Cost) },
	"ttft":      func(a, b AttemptRow) int { return cmp.Compare(a.TTFTMs, b.TTFTMs) },
	"wall":      func(a, b AttemptRow) int { return cmp.Compare(a.WallMs, b.WallMs) },
	"approvals": func(a, b AttemptRow) int { return cmp.Compare(a.Approvals, b.Approvals) },
}

// KeepRequest keeps one attempt (a member's session reference); Archive archives the set's
// other members in the same step.
type KeepRequest struct {
	Attempt string `json:"attempt"`
	Archive bool   `json:"archive,omitempty"`
}

// KeepResult is the original session after a keep and the members archived with it.
type KeepResult struct {
	Set      string   `json:"set"`
	Session  *Session `json:"session"`
	Archived []string `json:"archived,omitempty"`
}

// AttemptScore folds a member's own events (those after its fork) into the counters of its
// scoreboard row; files changed are the union of its snapshots' paths.
func AttemptScore(row *AttemptRow, evs []Event) {
	files := map[string]bool{}
	var first, last time.Time
	ended := false
	for _, e := range evs {
		if first.IsZero() {
			first = e.Time
		}
		if !ended {
			last = e.Time // wall time runs to the attempt's end, not to a later archive
		}
		p, err := Decode(e)
		if err != nil {
			continue
		}
		switch d := p.(type) {
		case *StepStarted:
			row.Steps++
		case *ModelCompleted:
			row.Tokens += d.Usage.Input + d.Usage.Output
			row.Cost += d.Cost
			if row.TTFTMs == 0 {
				row.TTFTMs = d.TTFTMs
			}
		case *ToolStarted:
			row.ToolCalls++
		case *ApprovalRequested:
			row.Approvals++
		case *WorkspaceSnapshot:
			if d.Baseline || d.External {
				continue // the files as they were, or changes that were not the attempt's
			}
			for _, c := range d.Changed {
				files[c.Path] = true
			}
		case *AttemptChecked:
			row.Check = d
		case *AttemptEnded:
			row.Status, row.Reason, ended = d.Outcome, d.Reason, true
		}
	}
	row.Files = row.Files[:0]
	for f := range files {
		row.Files = append(row.Files, f)
	}
	slices.Sort(row.Files)
	if !first.IsZero() {
		row.WallMs = last.Sub(first).Milliseconds()
	}
}
