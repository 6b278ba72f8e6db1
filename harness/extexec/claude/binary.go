package claude

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Name is this executor's name (exo run --executor claude-code).
const Name = "claude-code"

// PinnedVersion is the Claude Code release exo is tested with (npm @anthropic-ai/claude-code).
const PinnedVersion = "2.1.330"

// BinaryEnv names the variable that points exo at a claude binary.
const BinaryEnv = "EXO_CLAUDE_BIN"

// ErrNotFound means no claude binary was found.
var ErrNotFound = errors.New("claude (Claude Code) not found")

// FindBinary locates claude: $EXO_CLAUDE_BIN, then claude on PATH, then the copy exo's CI
// installs (~/.cache/exo-ci/claude-code-VERSION).
func FindBinary() (string, error) {
	if p := os.Getenv(BinaryEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: %s=%s: %v", ErrNotFound, BinaryEnv, p, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath("claude"); err == nil {
		return p, nil
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cache", "exo-ci", "claude-code-"+PinnedVersion, "node_modules", ".bin", "claude")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: install it (npm install -g @anthropic-ai/claude-code@%s) or set %s", ErrNotFound, PinnedVersion, BinaryEnv)
}

// Version runs `claude --version` (e.g. "2.1.330 (Claude Code)").
func Version(bin string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "DISABLE_AUTOUPDATER=1"}
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	return strings.TrimSpace(string(out)), nil
}
