package sandbox

import (
	"io"
	"time"
)

// RunOptions tune one foreground command.
type RunOptions struct {
	// Timeout bounds the command; zero means DefaultTimeout.
	Timeout time.Duration
	// Stream receives the output live, sanitized for display: SGR colours kept,
	// every other control sequence removed. Writes happen on the PTY reader; keep them fast.
	Stream io.Writer
	// Name labels the artifact created for large output.
	Name string
	// Filter, when set, rewrites the model text before it is kept (head and tail, artifact).
	Filter OutputFilter
}

// DefaultTimeout bounds a command when RunOptions.Timeout is zero.
const DefaultTimeout = 2 * time.Minute

// Result describes a finished command.
type Result struct {
	// ExitCode is the command's status, or -1 when it is unknown (killed shell).
	ExitCode int
	// Duration is the wall time from start to completion.
	Duration time.Duration
	// Killed is true when the command was stopped by timeout or cancellation.
	Killed bool
	// KillReason says why it was stopped ("timeout after 2s", "cancelled").
	KillReason string
	// Output is the text for the model: escape sequences removed, head and tail kept
	// around a marker of what was cut when it exceeds the inline limit.
	Output string
	// TotalBytes is the size of the full model text.
	TotalBytes int64
	// Truncated is true when Output lacks the middle of the output.
	Truncated bool
	// ArtifactRef refers to the full model text (escape sequences removed) when it
	// exceeded the inline limit.
	ArtifactRef string
	// Restarted is true when a new shell was started for this command, so earlier cd,
	// variables and functions are gone; Notes says why.
	Restarted bool
	// Notes are plain sentences about anything unusual (restart, shell exit, artifact failure).
	Notes []string
	// Enforcement is the confinement the command ran under.
	Enforcement Enforcement
	// Detached is the ID of the group of processes the command left running (see
	// Shell.Detached), "" when it left none.
	Detached string
}
