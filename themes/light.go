package themes

import (
	"charm.land/glamour/v2/styles"
	"charm.land/lipgloss/v2"
)

// LightPalette is the palette of the light theme.
func LightPalette() Palette {
	c := lipgloss.Color
	return Palette{
		Fg: c("#2B2B36"), Muted: c("#6B6B80"), Subtle: c("#B4B4C4"), Accent: c("#2E59C6"),
		Accent2: c("#7A3EC8"), User: c("#0B7285"), Tool: c("#A05A00"),
		OK: c("#2B8A3E"), Warn: c("#A05A00"), Err: c("#C92A2A"),
		Add: c("#2B8A3E"), Remove: c("#C92A2A"), Hunk: c("#0B7285"),
		SelBg: c("#DDE4F7"), SelFg: c("#101020"), BarBg: c("#E8E8F0"), BarFg: c("#2B2B36"),
		Badge: c("#A05A00"), OnAccent: c("#FFFFFF"),
	}
}

// Light builds the light theme.
func Light() *Styles {
	return build(NameLight, LightPalette(), paneGlamour(styles.LightStyleConfig))
}
