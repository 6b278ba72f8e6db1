package themes

import (
	"charm.land/bubbles/v2/help"
	"charm.land/glamour/v2/ansi"
	"charm.land/lipgloss/v2"
)

// Styles is the one style type the views use, grouped by meaning.
type Styles struct {
	Name     string           // Name is the theme name (dark, light, high-contrast, no-color).
	Dark     bool             // Dark is true for themes meant for dark backgrounds.
	Palette  Palette          // Palette is the palette the styles were built from.
	Pane     PaneStyles       // Pane styles pane frames.
	Text     TextStyles       // Text styles plain text.
	Conv     ConvStyles       // Conv styles the conversation pane.
	Diff     DiffStyles       // Diff styles unified diffs.
	Status   StatusStyles     // Status styles the status bar and status levels.
	Drift    DriftStyles      // Drift styles the drift bar.
	Timeline TimelineStyles   // Timeline styles timeline rows.
	Modal    ModalStyles      // Modal styles overlays and dialogs.
	Spinner  lipgloss.Style   // Spinner styles spinner frames.
	Select   lipgloss.Style   // Select styles the selected row.
	Scripted lipgloss.Style   // Scripted styles the "scripted" badge.
	Help     help.Styles      // Help styles the bubbles/help view.
	Glamour  ansi.StyleConfig // Glamour is the markdown style matched to the theme.
}

// PaneStyles styles the frame around a pane.
type PaneStyles struct {
	Border        lipgloss.Style // Border is the frame of a blurred pane.
	BorderFocused lipgloss.Style // BorderFocused is the frame of the focused pane.
	Title         lipgloss.Style // Title is the title of a blurred pane.
	TitleFocused  lipgloss.Style // TitleFocused is the title of the focused pane.
}

// TextStyles styles plain text.
type TextStyles struct {
	Normal lipgloss.Style // Normal is body text.
	Muted  lipgloss.Style // Muted is secondary text.
	Dim    lipgloss.Style // Dim is de-emphasised text (abandoned branches).
	Strong lipgloss.Style // Strong is emphasised text.
	// Mention is an @path mention in the prompt and an attachment line in the conversation.
	Mention lipgloss.Style
}

// ConvStyles styles conversation items.
type ConvStyles struct {
	UserLabel      lipgloss.Style // UserLabel is the "you" marker.
	User           lipgloss.Style // User is user text.
	AssistantLabel lipgloss.Style // AssistantLabel is the assistant marker.
	ToolName       lipgloss.Style // ToolName is the tool name of a tool block.
	ToolArgs       lipgloss.Style // ToolArgs is the argument summary of a tool block.
	ToolOutput     lipgloss.Style // ToolOutput is expanded tool output.
	ToolSelected   lipgloss.Style // ToolSelected marks the selected tool block gutter.
	Notice         lipgloss.Style // Notice is a harness notice.
	Denied         lipgloss.Style // Denied is a denied-secret notice.
	Violation      lipgloss.Style // Violation is a policy-violation notice.
	Preview        lipgloss.Style // Preview is the time-travel banner.
}

// DiffStyles styles unified diffs.
type DiffStyles struct {
	Add     lipgloss.Style // Add is an added line.
	Remove  lipgloss.Style // Remove is a removed line.
	Hunk    lipgloss.Style // Hunk is a hunk header.
	Header  lipgloss.Style // Header is a file header.
	Context lipgloss.Style // Context is an unchanged line.
}

// StatusStyles styles the status bar and status levels.
type StatusStyles struct {
	Bar   lipgloss.Style // Bar is the status bar background.
	Key   lipgloss.Style // Key is a label in the bar.
	Value lipgloss.Style // Value is a value in the bar.
	OK    lipgloss.Style // OK is a success level.
	Warn  lipgloss.Style // Warn is a warning level.
	Err   lipgloss.Style // Err is an error level.
	Idle  lipgloss.Style // Idle is an idle or finished level.
}

// DriftStyles styles the drift bar by level.
type DriftStyles struct {
	Low   lipgloss.Style // Low is drift below 0.3.
	Mid   lipgloss.Style // Mid is drift from 0.3 to 0.7.
	High  lipgloss.Style // High is drift of 0.7 and above.
	Empty lipgloss.Style // Empty is the unfilled part of the bar.
}

// TimelineStyles styles timeline rows.
type TimelineStyles struct {
	Seq         lipgloss.Style            // Seq is the sequence number.
	Time        lipgloss.Style            // Time is the timestamp.
	Actor       lipgloss.Style            // Actor is the actor column.
	Summary     lipgloss.Style            // Summary is the one-line summary.
	BranchPoint lipgloss.Style            // BranchPoint marks a fork or rewind point.
	Abandoned   lipgloss.Style            // Abandoned dims rows of abandoned branches.
	Family      map[string]lipgloss.Style // Family colours glyphs by event family (the type's first segment).
	Other       lipgloss.Style            // Other colours glyphs of unknown families.
}

// ModalStyles styles overlays and dialogs.
type ModalStyles struct {
	Frame   lipgloss.Style // Frame is the dialog border.
	Title   lipgloss.Style // Title is the dialog title.
	Button  lipgloss.Style // Button is an unselected choice.
	Active  lipgloss.Style // Active is the selected choice.
	Danger  lipgloss.Style // Danger marks destructive choices and warnings.
	JSONKey lipgloss.Style // JSONKey colours keys in pretty JSON.
}

// Glyph returns the style for a timeline glyph of the given event family.
func (t TimelineStyles) Glyph(family string) lipgloss.Style {
	if s, ok := t.Family[family]; ok {
		return s
	}
	return t.Other
}
