package codex

import (
	"errors"

	"exo/harness/extexec"
)

// Name is this executor's name (exo run --executor codex).
const Name = "codex"

// PinnedVersion is the Codex CLI release exo is tested with (npm @openai/codex).
const PinnedVersion = "0.169.0"

// BinaryEnv names the variable that points exo at a codex binary.
const BinaryEnv = "EXO_CODEX_BIN"

// ErrNotFound means no codex binary was found.
var ErrNotFound = errors.New("codex (OpenAI Codex CLI) not found")

// binary is codex as exo finds it.
var binary = extexec.Binary{Command: "codex", Package: "@openai/codex", Pinned: PinnedVersion, Env: BinaryEnv,
	CacheDir: "codex", NotFound: ErrNotFound,
	VersionEnv: func(home string) []string { return []string{"CODEX_HOME=" + home} }}

// FindBinary locates codex: $EXO_CODEX_BIN, then codex on PATH, then the copy exo's CI installs
// (~/.cache/exo-ci/codex-VERSION).
func FindBinary() (string, error) { return binary.Find() }

// Version runs `codex --version` (e.g. "codex-cli 0.169.0").
func Version(bin string) (string, error) { return binary.Version(bin) }
