package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// KnownAgents are ACP agents exo looks for when it reports which executors are usable (any
// other runs too, named acp:COMMAND).
var KnownAgents = []string{"claude-agent-acp", "codex-acp", "gemini"}

// Found is a known ACP agent found on this machine.
type Found struct {
	Command string
	Path    string
	// Version is the agent's npm package version, when its program is an npm package's.
	Version string
}

// Probe looks for the known ACP agents (PATH, $EXO_ACP_PATH, exo's CI cache).
func Probe() []Found {
	var out []Found
	for _, c := range KnownAgents {
		p, err := FindCommand(c)
		if err != nil {
			continue
		}
		out = append(out, Found{Command: c, Path: p, Version: PackageVersion(p)})
	}
	return out
}

// PackageVersion is the version in the package.json of the npm package a program belongs to
// (an npm bin link resolves into the package), or "".
func PackageVersion(prog string) string {
	real, err := filepath.EvalSymlinks(prog)
	if err != nil {
		return ""
	}
	for dir := filepath.Dir(real); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		b, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			if filepath.Base(dir) == "node_modules" {
				return ""
			}
			continue
		}
		var pkg struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		}
		if json.Unmarshal(b, &pkg) != nil {
			return ""
		}
		return pkg.Version
	}
	return ""
}
