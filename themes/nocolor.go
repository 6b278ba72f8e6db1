package themes

import "charm.land/glamour/v2/styles"

// NoColor builds the colourless theme used when NO_COLOR is set: emphasis
// by bold, reverse video and faint text only.
func NoColor() *Styles {
	p := DarkPalette()
	p.Mono = true
	return build(NameNoColor, p, paneGlamour(styles.NoTTYStyleConfig))
}
