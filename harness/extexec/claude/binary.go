package claude

import (
	"errors"

	"exo/harness/extexec"
)

// Name is this executor's name (exo run --executor claude-code).
const Name = "claude-code"

// PinnedVersion is the Claude Code release exo is tested with (npm @anthropic-ai/claude-code).
const PinnedVersion = "2.1.330"

// BinaryEnv names the variable that points exo at a claude binary.
const BinaryEnv = "EXO_CLAUDE_BIN"

// ErrNotFound means no claude binary was found.
var ErrNotFound = errors.New("claude (Claude Code) not found")

// binary is claude as exo finds it.
var binary = extexec.Binary{Command: "claude", Package: "@anthropic-ai/claude-code", Pinned: PinnedVersion, Env: BinaryEnv,
	CacheDir: "claude-code", NotFound: ErrNotFound,
	VersionEnv: func(string) []string { return []string{"DISABLE_AUTOUPDATER=1"} }}

// FindBinary locates claude: $EXO_CLAUDE_BIN, then claude on PATH, then the copy exo's CI
// installs (~/.cache/exo-ci/claude-code-VERSION).
func FindBinary() (string, error) { return binary.Find() }

// Version runs `claude --version` (e.g. "2.1.330 (Claude Code)").
func Version(bin string) (string, error) { return binary.Version(bin) }
