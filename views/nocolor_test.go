package views

import (
	"regexp"
	"testing"

	"exo/themes"
)

// colourSGR matches an SGR sequence that sets a colour.
var colourSGR = regexp.MustCompile(`\x1b\[[0-9;:]*(3[0-9]|4[0-9]|9[0-7]|10[0-7])[;:m]`)

func TestNoColorThemeEmitsNoColour(t *testing.T) {
	c := NewCommon(themes.NoColor())
	for name, build := range goldenPanes {
		p := build(c, 80)
		if s, ok := p.(sizer); ok {
			s.SetSize(60, 20)
		}
		if m := colourSGR.FindString(p.View()); m != "" {
			t.Errorf("%s emits colour %q under NO_COLOR", name, m)
		}
	}
}

func TestHighContrastRenders(t *testing.T) {
	c := NewCommon(themes.HighContrast())
	for name, build := range goldenPanes {
		p := build(c, 120)
		if s, ok := p.(sizer); ok {
			s.SetSize(70, 20)
			checkMaxWidth(t, p.View(), 70, 20)
		}
		if p.View() == "" {
			t.Errorf("%s renders nothing", name)
		}
	}
}
