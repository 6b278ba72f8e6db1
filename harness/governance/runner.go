package governance

import (
	"context"
	"time"

	"exo/harness"
)

// SandboxRunner runs checks in a session's sandbox shell through the harness, each bounded by
// timeout (0: the sandbox default). A killed command counts as exit -1 with the reason appended.
// Files a check changes are snapshotted like any other command's.
func SandboxRunner(h *harness.Harness, sessionID string, timeout time.Duration) Runner {
	return func(ctx context.Context, command string) (int, string, error) {
		res, err := h.Exec(ctx, sessionID, command, harness.ExecOptions{Timeout: timeout})
		if err != nil {
			return -1, "", err
		}
		out := res.Output
		if res.Killed {
			return -1, out + "\n[killed: " + res.KillReason + "]", nil
		}
		return res.ExitCode, out, nil
	}
}
