package harness

import (
	"os"
	"path/filepath"
)

// ConfigDir is exo's folder in the user's configuration: $XDG_CONFIG_HOME/exo, else
// ~/.config/exo ("" without a home). It holds the user's mcp.json, settings.json (hooks),
// commands/ and skills/.
func ConfigDir() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "exo")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config", "exo")
	}
	return ""
}
