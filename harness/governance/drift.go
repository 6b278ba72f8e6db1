package governance

import (
	"math"
	"slices"
)

// Drift weights and level thresholds, as in ExoProtocol.
const (
	WeightScope    = 0.50
	WeightBudget   = 0.35
	WeightBoundary = 0.15
	LevelMidFrom   = 0.3
	LevelHighFrom  = 0.7
)

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

// ComputeDrift scores a set of changed paths against a scope.
func ComputeDrift(scope Scope, changed []string) Drift {
	changed = slices.Clone(changed)
	slices.Sort(changed)
	changed = slices.Compact(changed)
	d := Drift{Changed: len(changed), Budget: scope.Budget, Level: LevelLow,
		Parts: Parts{Scope: Part{Weight: WeightScope}, Budget: Part{Weight: WeightBudget}, Boundary: Part{Weight: WeightBoundary}}}
	if len(changed) == 0 {
		return d
	}
	for _, p := range changed {
		if scope.InScope(p) {
			d.InScope++
		} else {
			d.Parts.Scope.Files = append(d.Parts.Scope.Files, p)
		}
		if scope.IsBoundary(p) {
			d.Parts.Boundary.Files = append(d.Parts.Boundary.Files, p)
		}
	}
	d.Parts.Scope.Factor = 1 - float64(d.InScope)/float64(d.Changed)
	if scope.Budget > 0 {
		d.Parts.Budget.Factor = math.Min(float64(d.Changed)/float64(scope.Budget), 1)
	}
	d.Parts.Budget.Files = changed
	if len(d.Parts.Boundary.Files) > 0 {
		d.Parts.Boundary.Factor = 1
	}
	return d.finish()
}

// finish weighs the parts, sums, clamps, rounds and sets the level.
func (d Drift) finish() Drift {
	total := 0.0
	for _, p := range []*Part{&d.Parts.Scope, &d.Parts.Budget, &d.Parts.Boundary} {
		p.Value = p.Weight * p.Factor
		total += p.Value
		p.Value, p.Factor = round6(p.Value), round6(p.Factor)
	}
	d.Total = round6(math.Max(0, math.Min(1, total)))
	d.Level = LevelOf(d.Total)
	return d
}

// LevelOf returns the band of a drift value.
func LevelOf(v float64) Level {
	switch {
	case v >= LevelHighFrom:
		return LevelHigh
	case v >= LevelMidFrom:
		return LevelMid
	}
	return LevelLow
}

// Drift scores the session's changes against its current scope.
func (s *State) Drift() Drift { return ComputeDrift(s.Scope, s.Changed()) }

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
