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
		if InScope(scope, p) {
			d.InScope++
		} else {
			d.Parts.Scope.Files = append(d.Parts.Scope.Files, p)
		}
		if IsBoundary(scope, p) {
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
	return finishDrift(d)
}

// finishDrift weighs the parts, sums, clamps, rounds and sets the level.
func finishDrift(d Drift) Drift {
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
