package views

import (
	"fmt"
	"strings"

	"exo/themes"
)

// DriftBar renders drift in [0,1] as an n-cell bar coloured by level
// (low < 0.3 ≤ mid < 0.7 ≤ high) followed by its value.
func DriftBar(st *themes.Styles, d float64, n int) string {
	fill := roundCells(d, n)
	style := st.Drift.Low
	switch LevelOf(d) {
	case DriftMid:
		style = st.Drift.Mid
	case DriftHigh:
		style = st.Drift.High
	}
	return style.Render(strings.Repeat("█", fill)) + st.Drift.Empty.Render(strings.Repeat("░", n-fill)) +
		" " + style.Render(fmt.Sprintf("%.2f", d))
}
