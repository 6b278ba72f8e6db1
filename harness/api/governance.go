package api

import (
	"slices"
	"strconv"
	"strings"
)

// Policy says what happens to shell changes outside the scope.
type Policy string

// Enforcement policies for shell changes.
const (
	PolicyRecord Policy = "record" // record a policy.violation (the default)
	PolicyRevert Policy = "revert" // record it and restore the file from the previous snapshot
)

// ConstitutionPath is the project constitution, relative to the project root.
const ConstitutionPath = ".exo/constitution.yaml"

// DefaultBoundary lists the paths no session may ever change.
func DefaultBoundary() []string {
	return []string{".git/**", ".exo/**", ConstitutionPath}
}

// Scope bounds what a session may change. An empty Allow means the whole workspace; Budget 0
// means no file budget.
type Scope struct {
	Allow    []string `json:"allow,omitempty"`
	Deny     []string `json:"deny,omitempty"`
	Budget   int      `json:"budget,omitempty"`
	Boundary []string `json:"boundary,omitempty"`
	Policy   Policy   `json:"policy,omitempty"`
}

// Boundaries returns the scope's boundary globs with the defaults always included.
func (s Scope) Boundaries() []string { return union(DefaultBoundary(), s.Boundary) }

// EffectivePolicy returns the policy, record when unset.
func (s Scope) EffectivePolicy() Policy {
	if s.Policy == "" {
		return PolicyRecord
	}
	return s.Policy
}

// String renders the scope on one line.
func (s Scope) String() string {
	var parts []string
	if len(s.Allow) == 0 {
		parts = append(parts, "allow everything")
	} else {
		parts = append(parts, "allow "+strings.Join(s.Allow, ","))
	}
	if len(s.Deny) > 0 {
		parts = append(parts, "deny "+strings.Join(s.Deny, ","))
	}
	budget := "no budget"
	if s.Budget > 0 {
		budget = "budget " + strconv.Itoa(s.Budget)
	}
	return strings.Join(append(parts, budget, "policy "+string(s.EffectivePolicy())), "; ")
}

// ScopeRequest is what a user or caller asks for when a session starts (exo new flags).
type ScopeRequest struct {
	Allow  []string
	Deny   []string
	Budget int
	Policy Policy
}

// Level is a drift band.
type Level string

// Drift levels: low < 0.3 ≤ mid < 0.7 ≤ high.
const (
	LevelLow  Level = "low"
	LevelMid  Level = "mid"
	LevelHigh Level = "high"
)

// Drift is a session's drift score with its three parts and the files behind each.
//
//	total = 0.50 × (1 − in-scope changed / all changed)
//	      + 0.35 × min(changed / budget, 1)
//	      + 0.15 × (1 if any changed file is a boundary path)
//
// clamped to [0,1]. With no changed files drift is 0. With no budget (0) the budget term is 0:
// an unbudgeted session is never penalised for size. Values are rounded to 6 decimals.
type Drift struct {
	Total   float64 `json:"total"`
	Level   Level   `json:"level"`
	Changed int     `json:"changed"`
	InScope int     `json:"in_scope"`
	Budget  int     `json:"budget"` // the scope's file budget, 0 for none
	Parts   Parts   `json:"parts"`
}

// Parts are the three terms of the drift formula.
type Parts struct {
	Scope    Part `json:"scope"`
	Budget   Part `json:"budget"`
	Boundary Part `json:"boundary"`
}

// Part is one term of the drift formula: its weighted value, its unweighted factor in [0,1] and
// the files behind it (out-of-scope files, all changed files, boundary files).
type Part struct {
	Value  float64  `json:"value"`
	Factor float64  `json:"factor"`
	Weight float64  `json:"weight"`
	Files  []string `json:"files,omitempty"`
}

// CheckResult is the outcome of one check.
type CheckResult struct {
	Name     string `json:"name"`
	Command  string `json:"command"`
	ExitCode int    `json:"exit_code"`
	Passed   bool   `json:"passed"`
	Output   string `json:"output,omitempty"` // the tail
	Error    string `json:"error,omitempty"`
}

// Memento is the closeout of a session (payload of session.memento): what was done and what was
// learned.
type Memento struct {
	Summary    string         `json:"summary"`
	Turns      int            `json:"turns"`
	Tools      map[string]int `json:"tools,omitempty"`
	Files      []FileChange   `json:"files,omitempty"`
	Drift      float64        `json:"drift"`
	Level      Level          `json:"level"`
	Checks     []CheckResult  `json:"checks,omitempty"`
	Violations []string       `json:"violations,omitempty"`
	Failures   []string       `json:"failures,omitempty"`
	Learned    []string       `json:"learned,omitempty"`
}

// ConflictDetected is the payload of conflict.detected, recorded once per pair and path on both
// sessions.
type ConflictDetected struct {
	Path      string `json:"path"`
	With      string `json:"with"`                // the other session's id
	WithName  string `json:"with_name,omitempty"` // the other session's name
	Workspace string `json:"workspace,omitempty"` // the other session's workspace
	Node      string `json:"node,omitempty"`      // the daemon running it, when another machine's
	Shared    bool   `json:"shared,omitempty"`    // both sessions work in the same directory
}

// union returns a's items followed by b's not in a.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
