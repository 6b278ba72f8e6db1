package themes

import (
	"errors"
	"strings"
	"testing"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestByName(t *testing.T) {
	for _, name := range Names {
		s, err := ByName(name, true, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name != NameAuto && s.Name != name {
			t.Errorf("ByName(%q).Name = %q", name, s.Name)
		}
	}
	if s, _ := ByName("auto", false, false); s.Name != NameLight {
		t.Errorf("auto on light background = %q", s.Name)
	}
	if s, _ := ByName("dark", true, true); s.Name != NameNoColor {
		t.Errorf("NO_COLOR did not win: %q", s.Name)
	}
	if _, err := ByName("neon", true, false); !errors.Is(err, ErrUnknownTheme) {
		t.Errorf("unknown theme error = %v", err)
	}
}

func TestNoColorHasNoColour(t *testing.T) {
	s := NoColor()
	out := s.Diff.Add.Render("+x") + s.Status.Err.Render("e") + s.Timeline.Glyph("tool").Render("t")
	if strings.Contains(out, "38;") || strings.Contains(out, "48;") {
		t.Errorf("no-color theme emits colour: %q", out)
	}
}

func TestGlamourStyles(t *testing.T) {
	for _, s := range []*Styles{Dark(), Light(), HighContrast(), NoColor()} {
		r, err := glamour.NewTermRenderer(glamour.WithStyles(s.Glamour), glamour.WithWordWrap(40))
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		out, err := r.Render("# Title\n\nSome *text* and `code`.\n")
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if !strings.Contains(ansi.Strip(out), "text") {
			t.Errorf("%s: rendered %q", s.Name, out)
		}
	}
}
