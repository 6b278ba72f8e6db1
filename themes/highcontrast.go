package themes

import (
	"charm.land/glamour/v2/styles"
	"charm.land/lipgloss/v2"
)

// HighContrastPalette is the palette of the high-contrast theme: pure
// colours on black, bold emphasis.
func HighContrastPalette() Palette {
	c := lipgloss.Color
	return Palette{
		Fg: c("#FFFFFF"), Muted: c("#E0E0E0"), Subtle: c("#C0C0C0"), Accent: c("#FFFF00"),
		Accent2: c("#00FFFF"), User: c("#00FF00"), Tool: c("#FF9900"),
		OK: c("#00FF00"), Warn: c("#FFFF00"), Err: c("#FF3030"),
		Add: c("#00FF00"), Remove: c("#FF3030"), Hunk: c("#00FFFF"),
		SelBg: c("#FFFF00"), SelFg: c("#000000"), BarBg: c("#FFFFFF"), BarFg: c("#000000"),
		Badge: c("#FF9900"), OnAccent: c("#000000"), Bold: true, DarkTheme: true,
	}
}

// HighContrast builds the high-contrast theme; its markdown style is the dark
// one with text forced to white and headings to yellow.
func HighContrast() *Styles {
	g := paneGlamour(styles.DarkStyleConfig)
	white, yellow, cyan := "#FFFFFF", "#FFFF00", "#00FFFF"
	g.Document.Color = &white
	g.Text.Color = &white
	g.Heading.Color = &yellow
	g.H1.Color, g.H1.BackgroundColor = &yellow, nil
	g.Link.Color = &cyan
	g.Code.Color = &cyan
	return build(NameHighContrast, HighContrastPalette(), g)
}
