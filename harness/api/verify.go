package api

import "fmt"

// VerifyProblem names an event whose stored form breaks the hash chain.
type VerifyProblem struct {
	Branch string `json:"branch"`
	Seq    uint64 `json:"seq"`
	Reason string `json:"reason"`
}

// Error describes the problem in one line.
func (p VerifyProblem) Error() string {
	return fmt.Sprintf("%s@%d: %s", p.Branch, p.Seq, p.Reason)
}

// VerifyReport is the outcome of a verification.
type VerifyReport struct {
	Branches int             `json:"branches"`
	Events   int             `json:"events"`
	Problems []VerifyProblem `json:"problems,omitempty"`
}

// OK reports whether every checked chain holds.
func (r VerifyReport) OK() bool { return len(r.Problems) == 0 }
