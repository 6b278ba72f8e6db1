// Package themes holds every colour exo uses: a small palette per theme is
// turned by one constructor into a Styles struct of semantic groups, plus the
// matching glamour style for rendered markdown.
package themes

import "image/color"

// Palette is the small set of colours a theme is built from.
type Palette struct {
	Fg        color.Color // Fg is the main text colour.
	Muted     color.Color // Muted is secondary text (times, labels).
	Subtle    color.Color // Subtle is borders and separators of blurred panes.
	Accent    color.Color // Accent marks focus and titles.
	Accent2   color.Color // Accent2 marks the assistant and highlights.
	User      color.Color // User colours the user's turns.
	Tool      color.Color // Tool colours tool calls.
	OK        color.Color // OK is the success colour.
	Warn      color.Color // Warn is the warning colour.
	Err       color.Color // Err is the error colour.
	Add       color.Color // Add colours added diff lines.
	Remove    color.Color // Remove colours removed diff lines.
	Hunk      color.Color // Hunk colours diff hunk headers.
	SelBg     color.Color // SelBg is the background of a selected row.
	SelFg     color.Color // SelFg is the foreground of a selected row.
	BarBg     color.Color // BarBg is the status bar background.
	BarFg     color.Color // BarFg is the status bar foreground.
	Badge     color.Color // Badge colours the "scripted" badge.
	OnAccent  color.Color // OnAccent is text drawn over an accent background.
	Mono      bool        // Mono marks a colourless palette: emphasis by attributes only.
	Bold      bool        // Bold makes emphasised text bold (high contrast).
	DarkTheme bool        // DarkTheme is true for themes meant for dark backgrounds.
}
