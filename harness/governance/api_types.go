package governance

import "exo/harness/api"

// Policy says what happens to shell changes outside the scope (api.Policy).
type Policy = api.Policy

// Enforcement policies for shell changes.
const (
	PolicyRecord = api.PolicyRecord
	PolicyRevert = api.PolicyRevert
)

// ConstitutionPath is the project constitution, relative to the project root.
const ConstitutionPath = api.ConstitutionPath

// DefaultBoundary lists the paths no session may ever change.
func DefaultBoundary() []string { return api.DefaultBoundary() }

// Scope is a session's scope (api.Scope); CheckPath, InScope, IsBoundary, CheckIn and
// ValidateScope judge paths against it.
type Scope = api.Scope

// ScopeRequest is what a new session asks of its scope (api.ScopeRequest).
type ScopeRequest = api.ScopeRequest

// Level is a drift band (api.Level).
type Level = api.Level

// Drift levels: low < 0.3 ≤ mid < 0.7 ≤ high.
const (
	LevelLow  = api.LevelLow
	LevelMid  = api.LevelMid
	LevelHigh = api.LevelHigh
)

// Drift is a session's drift score with its parts (api.Drift; ComputeDrift computes it).
type Drift = api.Drift

// Parts are the three terms of the drift formula (api.Parts).
type Parts = api.Parts

// Part is one term of the drift formula (api.Part).
type Part = api.Part

// CheckResult is the outcome of one check (api.CheckResult).
type CheckResult = api.CheckResult

// Memento is the closeout of a session, payload of session.memento (api.Memento).
type Memento = api.Memento

// ConflictDetected is the payload of conflict.detected (api.ConflictDetected).
type ConflictDetected = api.ConflictDetected
