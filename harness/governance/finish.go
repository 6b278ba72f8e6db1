package governance

import (
	"context"
	"errors"
	"exo/harness/api"
	"fmt"
	"maps"
	"slices"
	"strings"

	"exo/harness"
)

// ErrFinished means the session has finished already.
var ErrFinished = api.ErrFinished

// Runner runs one check command in the session's sandbox and returns its exit code and output;
// err is for a command that could not be run at all.
type Runner func(ctx context.Context, command string) (exitCode int, output string, err error)

// FinishOptions describes how to finish a session.
type FinishOptions struct {
	Summary string  // what the agent or user says was done; generated when empty
	Checks  []Check // the constitution's checks
	Run     Runner  // required when there are checks
	Actor   string  // harness when empty
}

// checkOutputTail bounds the check output kept in a memento.
const checkOutputTail = 2000

// Finish runs the checks and appends session.memento and session.finished in one transaction.
func Finish(ctx context.Context, h *harness.Harness, sessionID string, o FinishOptions) (*Memento, error) {
	s, err := h.Session(sessionID)
	if err != nil {
		return nil, err
	}
	st, err := LoadBranch(h, s.ID, s.Branch)
	if err != nil {
		return nil, err
	}
	if st.Finished {
		return nil, fmt.Errorf("finish %s: %w", s.Name, ErrFinished)
	}
	results, err := RunChecks(ctx, o.Checks, o.Run)
	if err != nil {
		return nil, fmt.Errorf("finish %s: %w", s.Name, err)
	}
	m := BuildMemento(st, results, o.Summary)
	actor := firstNonEmpty(o.Actor, harness.ActorHarness)
	_, err = h.AppendOn(s.ID, s.Branch,
		harness.MustRecord(TypeSessionMemento, actor, m),
		harness.MustRecord(harness.TypeSessionFinished, actor,
			harness.SessionFinished{Summary: m.Summary, Learned: strings.Join(m.Learned, "; ")}))
	if err != nil {
		return nil, fmt.Errorf("finish %s: %w", s.Name, err)
	}
	return m, nil
}

// RunChecks runs each check in order; a check that cannot run counts as failed.
func RunChecks(ctx context.Context, checks []Check, run Runner) ([]CheckResult, error) {
	if len(checks) > 0 && run == nil {
		return nil, errors.New("the constitution has checks but no runner was given")
	}
	out := make([]CheckResult, 0, len(checks))
	for _, c := range checks {
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("checks cancelled before %s: %w", c.Name, err)
		}
		code, output, err := run(ctx, c.Run)
		r := CheckResult{Name: c.Name, Command: c.Run, ExitCode: code, Passed: err == nil && code == 0,
			Output: tail(output, checkOutputTail)}
		if err != nil {
			r.Error = err.Error()
		}
		out = append(out, r)
	}
	return out, nil
}

// BuildMemento summarises a session's State and check results.
func BuildMemento(st *State, checks []CheckResult, summary string) *Memento {
	d := st.Drift()
	m := &Memento{Turns: st.Turns, Tools: maps.Clone(st.Tools), Drift: d.Total, Level: d.Level,
		Checks: checks, Violations: st.Violations, Failures: st.Failures}
	for _, p := range st.Changed() {
		m.Files = append(m.Files, harness.FileChange{Path: p, Kind: st.Files[p].Kind})
	}
	m.Learned = learned(m)
	m.Summary = firstNonEmpty(summary, autoSummary(m))
	return m
}

// learned lists what went wrong, for the next session to know.
func learned(m *Memento) []string {
	var out []string
	for _, c := range m.Checks {
		if !c.Passed {
			out = append(out, fmt.Sprintf("check %s (%s) failed: exit %d %s", c.Name, c.Command, c.ExitCode,
				oneLine(firstNonEmpty(c.Error, lastLine(c.Output)))))
		}
	}
	for _, v := range m.Violations {
		out = append(out, "policy violation: "+v)
	}
	return append(out, m.Failures...)
}

// autoSummary says what was done in one sentence.
func autoSummary(m *Memento) string {
	files := make([]string, 0, len(m.Files))
	for _, f := range m.Files {
		files = append(files, f.Path)
	}
	return fmt.Sprintf("Changed %d file(s)%s in %d turn(s) using %s; drift %.2f (%s); checks %s.",
		len(m.Files), listHead(files, 5), m.Turns, toolsText(m.Tools), m.Drift, m.Level, checksLine(m))
}

// checksLine renders "2/3 passed" or "none".
func checksLine(m *Memento) string {
	if len(m.Checks) == 0 {
		return "none"
	}
	n := 0
	for _, c := range m.Checks {
		if c.Passed {
			n++
		}
	}
	return fmt.Sprintf("%d/%d passed", n, len(m.Checks))
}

// toolsText renders tool use as "bash×3, write_file×1".
func toolsText(tools map[string]int) string {
	if len(tools) == 0 {
		return "no tools"
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		parts = append(parts, fmt.Sprintf("%s×%d", name, tools[name]))
	}
	return strings.Join(parts, ", ")
}

// listHead renders " (a, b, +3 more)" or "".
func listHead(items []string, n int) string {
	if len(items) == 0 {
		return ""
	}
	s := strings.Join(items[:min(n, len(items))], ", ")
	if len(items) > n {
		s += fmt.Sprintf(", +%d more", len(items)-n)
	}
	return " (" + s + ")"
}

// tail keeps the last n bytes of s, on a line boundary when one is near.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < 200 {
		s = s[i+1:]
	}
	return "…" + s
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
