package themes

import (
	"errors"
	"fmt"
	"os"
)

// Theme names accepted by ByName and --theme.
const (
	NameDark         = "dark"
	NameLight        = "light"
	NameHighContrast = "high-contrast"
	NameNoColor      = "no-color"
	NameAuto         = "auto"
)

// Names lists the selectable theme names.
var Names = []string{NameAuto, NameDark, NameLight, NameHighContrast, NameNoColor}

// ErrUnknownTheme is returned by ByName for a name not in Names.
var ErrUnknownTheme = errors.New("unknown theme")

// ForBackground picks dark or light by the detected terminal background
// (pass tea.BackgroundColorMsg.IsDark()).
func ForBackground(isDark bool) *Styles {
	if isDark {
		return Dark()
	}
	return Light()
}

// ByName builds the named theme; "auto" or "" picks by background. A set
// noColor (see NoColorRequested) overrides every name.
func ByName(name string, isDark, noColor bool) (*Styles, error) {
	if noColor {
		return NoColor(), nil
	}
	switch name {
	case "", NameAuto:
		return ForBackground(isDark), nil
	case NameDark:
		return Dark(), nil
	case NameLight:
		return Light(), nil
	case NameHighContrast, "hc":
		return HighContrast(), nil
	case NameNoColor, "none":
		return NoColor(), nil
	}
	return nil, fmt.Errorf("theme %q: %w (choose one of %v)", name, ErrUnknownTheme, Names)
}

// NoColorRequested reports whether the NO_COLOR convention asks for no colour.
func NoColorRequested() bool {
	return os.Getenv("NO_COLOR") != ""
}
