package api

import (
	"syscall"
	"time"
)

// DetachedTask is a background command started from the command line (`exo exec --background`):
// it runs in its own process, outliving the exo that started it, with its files under
// EXO_HOME/tasks/ID; the next exo to open the store records its completion in the session's log.
type DetachedTask struct {
	ID        string    `json:"id"`
	Session   string    `json:"session"`
	Branch    string    `json:"branch"`
	Command   string    `json:"command"`
	Workspace string    `json:"workspace"`
	Network   bool      `json:"network"`
	Started   time.Time `json:"started"`
	Pid       int       `json:"pid,omitempty"`
	// Filled in when it ends.
	Ended      time.Time `json:"ended,omitempty"`
	ExitCode   int       `json:"exit_code"`
	KillReason string    `json:"kill_reason,omitempty"`
	Done       bool      `json:"done"`
	Recorded   bool      `json:"recorded"`
	// Artifact holds the output, redacted, once the end is recorded (output.log, which the
	// runner wrote raw, is then removed, and Command redacted).
	Artifact string `json:"artifact,omitempty"`
}

// State describes a detached task in one word.
func (t DetachedTask) State() string {
	switch {
	case t.Done && t.KillReason != "":
		return "killed"
	case t.Done:
		return "exited"
	case t.Pid <= 0:
		return "starting"
	case syscall.Kill(t.Pid, 0) != nil:
		return "lost"
	}
	return "running"
}
