package themes

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/glamour/v2/ansi"
	"charm.land/lipgloss/v2"
)

// build turns a palette into the full Styles of a theme.
func build(name string, p Palette, glam ansi.StyleConfig) *Styles {
	fg := func(c color.Color) lipgloss.Style { return lipgloss.NewStyle().Foreground(p.colour(c)) }
	s := &Styles{Name: name, Dark: p.DarkTheme, Palette: p, Glamour: glam}
	s.Pane = PaneStyles{
		Border:        fg(p.Subtle),
		BorderFocused: fg(p.Accent).Bold(p.Bold),
		Title:         fg(p.Muted),
		TitleFocused:  fg(p.Accent).Bold(true),
	}
	s.Text = TextStyles{Normal: fg(p.Fg), Muted: fg(p.Muted), Dim: fg(p.Subtle).Faint(p.Mono), Strong: fg(p.Fg).Bold(true),
		Mention: fg(p.Accent2).Underline(true)}
	s.Conv = ConvStyles{
		UserLabel: fg(p.User).Bold(true), User: fg(p.Fg),
		AssistantLabel: fg(p.Accent2).Bold(true),
		ToolName:       fg(p.Tool).Bold(true), ToolArgs: fg(p.Muted), ToolOutput: fg(p.Fg),
		ToolSelected: fg(p.Accent).Bold(true),
		Notice:       fg(p.Muted).Italic(true), Denied: fg(p.Warn).Bold(true), Violation: fg(p.Err).Bold(true),
		Preview: p.inverse(p.Warn),
	}
	s.Diff = DiffStyles{Add: fg(p.Add), Remove: fg(p.Remove), Hunk: fg(p.Hunk), Header: fg(p.Fg).Bold(true), Context: fg(p.Muted)}
	s.Status = StatusStyles{
		Bar: lipgloss.NewStyle().Background(p.colour(p.BarBg)).Foreground(p.colour(p.BarFg)).Reverse(p.Mono),
		Key: fg(p.Muted), Value: fg(p.Fg).Bold(p.Bold),
		OK: fg(p.OK), Warn: fg(p.Warn).Bold(p.Bold), Err: fg(p.Err).Bold(true), Idle: fg(p.Muted),
	}
	s.Drift = DriftStyles{Low: fg(p.OK), Mid: fg(p.Warn), High: fg(p.Err).Bold(p.Mono), Empty: fg(p.Subtle)}
	s.Timeline = p.timeline()
	s.Modal = ModalStyles{
		Frame: fg(p.Accent), Title: fg(p.Accent).Bold(true), Button: fg(p.Muted),
		Active: p.inverse(p.Accent), Danger: fg(p.Err).Bold(true), JSONKey: fg(p.Accent2),
	}
	s.Spinner = fg(p.Accent2)
	s.Select = lipgloss.NewStyle().Background(p.colour(p.SelBg)).Foreground(p.colour(p.SelFg)).Reverse(p.Mono)
	s.Scripted = p.inverse(p.Badge)
	s.Help = help.Styles{
		ShortKey: fg(p.Accent), ShortDesc: fg(p.Muted), ShortSeparator: fg(p.Subtle), Ellipsis: fg(p.Subtle),
		FullKey: fg(p.Accent), FullDesc: fg(p.Muted), FullSeparator: fg(p.Subtle),
	}
	return s
}

// timeline builds the timeline styles with one glyph colour per event family.
func (p Palette) timeline() TimelineStyles {
	fg := func(c color.Color) lipgloss.Style { return lipgloss.NewStyle().Foreground(p.colour(c)) }
	return TimelineStyles{
		Seq: fg(p.Muted), Time: fg(p.Muted), Actor: fg(p.Accent2), Summary: fg(p.Fg),
		BranchPoint: fg(p.Accent).Bold(true), Abandoned: fg(p.Subtle).Faint(p.Mono).Strikethrough(p.Mono),
		Family: map[string]lipgloss.Style{
			"session": fg(p.Accent), "invocation": fg(p.User), "step": fg(p.Muted),
			"model": fg(p.Accent2), "tool": fg(p.Tool), "task": fg(p.Tool),
			"artifact": fg(p.Hunk), "workspace": fg(p.Hunk), "secret": fg(p.Warn).Bold(true),
			"policy": fg(p.Err).Bold(true), "approval": fg(p.Warn), "compaction": fg(p.Muted),
			"handoff": fg(p.Accent),
		},
		Other: fg(p.Fg),
	}
}

// colour returns c, or no colour for a mono palette.
func (p Palette) colour(c color.Color) color.Color {
	if p.Mono || c == nil {
		return lipgloss.NoColor{}
	}
	return c
}

// inverse is a badge style: text in OnAccent over c, or reverse video in mono.
func (p Palette) inverse(c color.Color) lipgloss.Style {
	if p.Mono {
		return lipgloss.NewStyle().Reverse(true).Bold(true)
	}
	return lipgloss.NewStyle().Background(c).Foreground(p.OnAccent).Bold(true)
}
