package governance

import (
	"slices"
	"strings"
)

// Approval is a per-tool approval policy.
type Approval string

// Approval policies.
const (
	ApprovalAuto Approval = "auto" // run without asking
	ApprovalAsk  Approval = "ask"  // ask the user each time
	ApprovalDeny Approval = "deny" // never run
)

// Constitution is a project's governance, read from .exo/constitution.yaml. Its JSON encoding
// is the canonical form that the lock seals.
type Constitution struct {
	Version   int                 `json:"version"`
	Project   string              `json:"project,omitempty"`
	Rules     []string            `json:"rules,omitempty"`
	Deny      []string            `json:"deny,omitempty"`
	Scope     DefaultScope        `json:"scope"`
	Boundary  []string            `json:"boundary,omitempty"`
	Approvals map[string]Approval `json:"approvals,omitempty"`
	Checks    []Check             `json:"checks,omitempty"`
}

// DefaultScope is the scope a new session gets unless it asks for another.
type DefaultScope struct {
	Allow  []string `json:"allow,omitempty"`
	Budget int      `json:"budget,omitempty"`
	Policy Policy   `json:"policy,omitempty"`
}

// Check is a command run in the sandbox when a session finishes.
type Check struct {
	Name string `json:"name"`
	Run  string `json:"run"`
}

// Approval returns the approval policy of a tool: its own, else the "*" entry, else "" (the
// executor's default).
func (c *Constitution) Approval(tool string) Approval {
	if c == nil {
		return ""
	}
	if a, ok := c.Approvals[tool]; ok {
		return a
	}
	return c.Approvals["*"]
}

// RulesText renders the rules for a bootstrap prompt; "" when there are none.
func (c *Constitution) RulesText() string {
	if c == nil || len(c.Rules) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Project rules (from .exo/constitution.yaml):\n")
	for _, r := range c.Rules {
		b.WriteString("- " + r + "\n")
	}
	return b.String()
}

// NewScope builds a starting scope: the constitution's defaults (c may be nil), with the
// request's allow list replacing the default one, its budget and policy overriding, and deny and
// boundary lists added to the project's. The result is validated.
func NewScope(c *Constitution, r ScopeRequest) (Scope, error) {
	s := Scope{Allow: slices.Clone(r.Allow), Deny: slices.Clone(r.Deny), Budget: r.Budget, Policy: r.Policy,
		Boundary: DefaultBoundary()}
	if c != nil {
		if len(s.Allow) == 0 {
			s.Allow = slices.Clone(c.Scope.Allow)
		}
		if s.Budget == 0 {
			s.Budget = c.Scope.Budget
		}
		if s.Policy == "" {
			s.Policy = c.Scope.Policy
		}
		s.Deny = union(c.Deny, s.Deny)
		s.Boundary = union(s.Boundary, c.Boundary)
	}
	if err := ValidateScope(s); err != nil {
		return Scope{}, err
	}
	return s, nil
}
