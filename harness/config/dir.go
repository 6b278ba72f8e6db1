package config

import (
	"os"
	"path/filepath"
)

// Dir is exo's folder in the user's configuration: $XDG_CONFIG_HOME/exo, else
// ~/.config/exo ("" without a home). It holds the user's mcp.json, settings.json (hooks),
// commands/ and skills/.
func Dir() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "exo")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config", "exo")
	}
	return ""
}
