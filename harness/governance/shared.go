package governance

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"exo/harness"
	"exo/harness/executor"
)

// InstallShared wires governance into a harness and the one executor of a daemon, which serves
// sessions of many projects: like Install, but each session's approvals follow the sealed
// constitution of its own workspace. Whether a turn may start under a changed constitution is
// checked per turn with CheckStart.
func InstallShared(h *harness.Harness, o *executor.Options) {
	installHooks(h, o)
	p := &approvalCache{h: h, byDir: map[string]approvalEntry{}}
	o.ApprovalsFor = p.forSession
}

// CheckStart verifies a workspace's constitution before a turn starts in it: a constitution
// changed since 'exo compile' is ErrGovernanceDrift unless allowStale.
func CheckStart(workspace string, allowStale bool) error {
	if workspace == "" {
		return nil
	}
	_, err := VerifyLock(workspace)
	if errors.Is(err, ErrNoConstitution) || (errors.Is(err, ErrGovernanceDrift) && allowStale) {
		return nil
	}
	return err
}

// approvalCache keeps the approval map of each workspace's sealed lock, re-read when the lock
// file changes.
type approvalCache struct {
	h     *harness.Harness
	mu    sync.Mutex
	byDir map[string]approvalEntry
}

type approvalEntry struct {
	mod   time.Time
	size  int64
	rules map[string]string
}

// forSession returns the approval map of a session's workspace (none without a readable lock).
func (c *approvalCache) forSession(sessionID string) map[string]string {
	s, err := c.h.Session(sessionID)
	if err != nil || s.Workspace == "" {
		return nil
	}
	fi, err := os.Stat(filepath.Join(s.Workspace, LockPath))
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byDir[s.Workspace]; ok && e.mod.Equal(fi.ModTime()) && e.size == fi.Size() {
		return e.rules
	}
	var rules map[string]string
	if _, con, err := ReadLock(s.Workspace); err == nil && con != nil {
		rules = con.ApprovalMap(executor.ToolNames()...)
	}
	c.byDir[s.Workspace] = approvalEntry{mod: fi.ModTime(), size: fi.Size(), rules: rules}
	return rules
}
