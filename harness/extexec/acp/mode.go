package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"exo/harness"
)

// askingModes are the ids of modes in which known agents ask the client before they act, best
// first: claude-agent-acp's and gemini's "default" ("Always ask before making changes") and
// codex-acp's "read-only" ("Requires approval to edit files and access the internet"; its
// workspace-write and agent modes let Codex edit the workspace without asking).
var askingModes = []string{"default", "read-only", "manual", "ask"}

// askingWords in a mode's description say that the agent asks before it acts in that mode.
var askingWords = []string{"always ask", "requires approval", "ask every", "ask for permission", "asks for permission"}

// asks reports whether, by its id or what the agent says of it, a mode makes the agent ask.
func asks(m sdk.SessionMode) bool {
	d := ""
	if m.Description != nil {
		d = strings.ToLower(*m.Description)
	}
	for _, w := range askingWords {
		if strings.Contains(d, w) {
			return true
		}
	}
	for _, id := range askingModes {
		if string(m.Id) == id && !strings.Contains(d, "automatic") && !strings.Contains(d, "without asking") {
			return true
		}
	}
	return false
}

// pickMode chooses the session mode: the one the user asked for (an error names the modes
// offered when the agent has no such mode), else the first mode in which the agent asks, by
// askingModes' order and then the agent's; found is false when no offered mode asks.
func pickMode(modes *sdk.SessionModeState, want string) (m sdk.SessionMode, by string, found bool, err error) {
	if want != "" {
		for _, m := range modes.AvailableModes {
			if string(m.Id) == want {
				return m, harness.ModeByUser, true, nil
			}
		}
		return sdk.SessionMode{}, "", false, fmt.Errorf("the agent has no mode %q; it offers %s", want, strings.Join(modeIDs(modes), ", "))
	}
	for _, id := range askingModes {
		for _, m := range modes.AvailableModes {
			if string(m.Id) == id && asks(m) {
				return m, harness.ModeByExo, true, nil
			}
		}
	}
	for _, m := range modes.AvailableModes {
		if asks(m) {
			return m, harness.ModeByExo, true, nil
		}
	}
	for _, m := range modes.AvailableModes {
		if m.Id == modes.CurrentModeId {
			return m, harness.ModeByAgent, false, nil
		}
	}
	return sdk.SessionMode{Id: modes.CurrentModeId}, harness.ModeByAgent, false, nil
}

// modeIDs lists the ids of the modes offered.
func modeIDs(modes *sdk.SessionModeState) []string {
	out := make([]string, 0, len(modes.AvailableModes))
	for _, m := range modes.AvailableModes {
		out = append(out, string(m.Id))
	}
	return out
}

// setMode puts a new or loaded session in the mode the user chose or, by default, in one where
// the agent asks exo before it acts, and notes the mode to record with the first turn. An agent
// that offers no modes is left as it is (nothing recorded); one asked for a mode while it offers
// none is an error.
func (pr *proc) setMode(ctx context.Context, modes *sdk.SessionModeState) error {
	want := pr.a.opts.Mode
	if modes == nil || len(modes.AvailableModes) == 0 {
		if want != "" {
			return fmt.Errorf("acp: mode %q asked for, but the agent offers no session modes", want)
		}
		return nil
	}
	m, by, found, err := pickMode(modes, want)
	if err != nil {
		return fmt.Errorf("acp: %w", err)
	}
	if m.Id != modes.CurrentModeId {
		if _, err := pr.conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: pr.session, ModeId: m.Id}); err != nil {
			return pr.startErr("session/set_mode", err)
		}
	}
	rec := pr.modeRecord(modes, m.Id, by)
	rec.Asks = found && rec.Asks
	pr.mu.Lock()
	pr.modes = modes
	pr.mu.Unlock()
	pr.setCurMode(m.Id)
	pr.queue(harness.MustRecord(harness.TypeExecutorMode, harness.ActorHarness, rec))
	return nil
}

// modeRecord describes mode id of the modes offered, chosen by by.
func (pr *proc) modeRecord(modes *sdk.SessionModeState, id sdk.SessionModeId, by string) harness.ExecutorMode {
	rec := harness.ExecutorMode{Executor: pr.a.name, Mode: string(id), By: by}
	if modes == nil {
		return rec
	}
	rec.Available = modeIDs(modes)
	for _, m := range modes.AvailableModes {
		if m.Id == id {
			rec.Name, rec.Asks = m.Name, asks(m)
			if m.Description != nil {
				rec.Description = *m.Description
			}
		}
	}
	return rec
}

// modeChanged records a current_mode_update: the agent switched modes itself (e.g. left plan
// mode); the mode is noted even between turns.
func (pr *proc) modeChanged(u *sdk.SessionCurrentModeUpdate) {
	if !pr.setCurMode(u.CurrentModeId) {
		return // the mode exo just set, confirmed
	}
	pr.mu.Lock()
	modes := pr.modes
	pr.mu.Unlock()
	pr.queue(harness.MustRecord(harness.TypeExecutorMode, harness.ActorHarness, pr.modeRecord(modes, u.CurrentModeId, harness.ModeByAgent)))
	pr.flushQueued()
}

// queue notes a record to write with the turn (or at once when the session is open).
func (pr *proc) queue(rec harness.Record) {
	pr.mu.Lock()
	pr.pending = append(pr.pending, rec)
	pr.mu.Unlock()
}

// flushQueued writes the records waiting, once the session has had its first turn (so they
// follow executor.selected); a branch moved meanwhile drops them.
func (pr *proc) flushQueued() {
	pr.mu.Lock()
	recs := pr.pending
	if !pr.opened {
		recs = nil
	} else {
		pr.pending = nil
	}
	pr.mu.Unlock()
	if len(recs) > 0 {
		_ = pr.ss.Log.Append(recs...)
	}
}

// setCurMode notes the mode the agent runs in; it reports whether that changed it.
func (pr *proc) setCurMode(id sdk.SessionModeId) bool {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	changed := pr.curMode != id
	pr.curMode = id
	return changed
}
