package themes

import (
	"charm.land/glamour/v2/styles"
	"charm.land/lipgloss/v2"
)

// DarkPalette is the palette of the dark theme.
func DarkPalette() Palette {
	c := lipgloss.Color
	return Palette{
		Fg: c("#D6D6E0"), Muted: c("#8A8AA0"), Subtle: c("#4A4A5C"), Accent: c("#7AA2F7"),
		Accent2: c("#BB9AF7"), User: c("#7DCFFF"), Tool: c("#E0AF68"),
		OK: c("#9ECE6A"), Warn: c("#E0AF68"), Err: c("#F7768E"),
		Add: c("#9ECE6A"), Remove: c("#F7768E"), Hunk: c("#7DCFFF"),
		SelBg: c("#2E3350"), SelFg: c("#FFFFFF"), BarBg: c("#24283B"), BarFg: c("#C0CAF5"),
		Badge: c("#E0AF68"), OnAccent: c("#1A1B26"), DarkTheme: true,
	}
}

// Dark builds the dark theme.
func Dark() *Styles {
	return build(NameDark, DarkPalette(), paneGlamour(styles.DarkStyleConfig))
}
