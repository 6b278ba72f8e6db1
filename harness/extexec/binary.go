package extexec

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Binary is an agent's program as exo finds it and asks its version (Claude Code's claude,
// Codex's codex).
type Binary struct {
	// Command is the program's name on PATH ("claude").
	Command string
	// Package is the npm package that installs it ("@anthropic-ai/claude-code").
	Package string
	// Pinned is the release exo is tested with.
	Pinned string
	// Env names the variable that points exo at the program (EXO_CLAUDE_BIN).
	Env string
	// CacheDir is the folder under ~/.cache/exo-ci where exo's CI installs the pinned release
	// (CacheDir-Pinned).
	CacheDir string
	// VersionEnv is what the program needs in its environment beside PATH and HOME (a private
	// folder) to print its version without touching the user's state.
	VersionEnv func(home string) []string
	// NotFound is the error wrapped when the program is not found.
	NotFound error
}

// Find locates the program: $Env, then Command on PATH, then the copy exo's CI installs
// (~/.cache/exo-ci/CacheDir-Pinned).
func (b Binary) Find() (string, error) {
	if p := os.Getenv(b.Env); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: %s=%s: %v", b.NotFound, b.Env, p, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath(b.Command); err == nil {
		return p, nil
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cache", "exo-ci", b.CacheDir+"-"+b.Pinned, "node_modules", ".bin", b.Command)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: install it (npm install -g %s@%s) or set %s", b.NotFound, b.Package, b.Pinned, b.Env)
}

// Version runs `bin --version` with a private, removed-after HOME.
func (b Binary) Version(bin string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	home, err := os.MkdirTemp("", "exo-"+b.Command+"-version-")
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	defer os.RemoveAll(home)
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	if b.VersionEnv != nil {
		cmd.Env = append(cmd.Env, b.VersionEnv(home)...)
	}
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	return strings.TrimSpace(string(out)), nil
}
