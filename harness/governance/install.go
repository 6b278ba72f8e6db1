package governance

import (
	"errors"
	"fmt"

	"exo/harness"
	"exo/harness/executor"
)

// Install wires governance into a harness and the default executor's options: file tools check
// the session's scope, the system prompt carries rules, scope and siblings, approvals follow the
// constitution of dir, handoffs are delivered before the next prompt, and every recorded snapshot
// is checked for changes outside the scope (recorded or reverted by policy) and for conflicts.
// It fails with ErrGovernanceDrift when dir's constitution changed since 'exo compile', unless
// allowStale is set.
func Install(h *harness.Harness, o *executor.Options, dir string, allowStale bool) error {
	installHooks(h, o)
	c, err := VerifyLock(dir)
	switch {
	case errors.Is(err, ErrNoConstitution):
		return nil
	case errors.Is(err, ErrGovernanceDrift) && allowStale:
		return nil
	case err != nil:
		return err
	}
	o.Approvals = c.ApprovalMap(executor.ToolNames()...)
	return nil
}

// installHooks wires the per-session hooks: scope checks, system prompt, subagent scopes,
// handoffs and the after-snapshot enforcement.
func installHooks(h *harness.Harness, o *executor.Options) {
	t := NewTracker(h)
	o.CheckWrite = t.CheckWrite
	o.SystemExtra = SystemExtraHook(h)
	o.NarrowScope = func(_, child string, allow, deny []string) error {
		_, err := SetScope(h, child, Scope{Allow: allow, Deny: deny}, harness.ActorHarness, "subagent")
		return err
	}
	o.BeforePrompt = func(id string) error {
		_, err := DeliverHandoffs(h, id, harness.ActorHarness)
		return err
	}
	h.SetSnapshotHook(func(id, branch string, snap harness.WorkspaceSnapshot, previous string) error {
		return enforceAfterSnapshot(h, t, id, branch, snap, previous)
	})
}

// enforceAfterSnapshot records violations of a snapshot's changes, reverts them under the revert
// policy, and records conflicts with siblings.
func enforceAfterSnapshot(h *harness.Harness, t *Tracker, id, branch string, snap harness.WorkspaceSnapshot, previous string) error {
	enf, err := EnforceSession(h, id, snap.Changed)
	if err != nil {
		return err
	}
	if len(enf.Violations) > 0 {
		if _, err := h.AppendOn(id, branch, enf.Violations...); err != nil {
			return err
		}
	}
	if len(enf.Revert) > 0 && previous != "" {
		if err := h.RevertPaths(id, branch, previous, enf.Revert); err != nil {
			return fmt.Errorf("revert out-of-scope changes: %w", err)
		}
	}
	_, err = t.RecordConflicts()
	return err
}
