package codex

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

// Name is this executor's name (exo run --executor codex).
const Name = "codex"

// PinnedVersion is the Codex CLI release exo is tested with (npm @openai/codex).
const PinnedVersion = "0.169.0"

// BinaryEnv names the variable that points exo at a codex binary.
const BinaryEnv = "EXO_CODEX_BIN"

// ErrNotFound means no codex binary was found.
var ErrNotFound = errors.New("codex (OpenAI Codex CLI) not found")

// FindBinary locates codex: $EXO_CODEX_BIN, then codex on PATH, then the copy exo's CI installs
// (~/.cache/exo-ci/codex-VERSION).
func FindBinary() (string, error) {
	if p := os.Getenv(BinaryEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: %s=%s: %v", ErrNotFound, BinaryEnv, p, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath("codex"); err == nil {
		return p, nil
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cache", "exo-ci", "codex-"+PinnedVersion, "node_modules", ".bin", "codex")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: install it (npm install -g @openai/codex@%s) or set %s", ErrNotFound, PinnedVersion, BinaryEnv)
}

// Version runs `codex --version` (e.g. "codex-cli 0.169.0").
func Version(bin string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tmp, err := os.MkdirTemp("", "exo-codex-version-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "CODEX_HOME=" + tmp}
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	return strings.TrimSpace(string(out)), nil
}
