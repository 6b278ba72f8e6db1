package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/harness/governance"
	"exo/store"
)

// ListSessions returns every session with its projected state, turn and client activity.
func (s *Service) ListSessions(ctx context.Context) ([]api.SessionInfo, error) {
	all, err := s.h.Sessions()
	if err != nil {
		return nil, err
	}
	act := s.activity()
	out := make([]api.SessionInfo, 0, len(all))
	for _, se := range all {
		st, err := s.h.BranchState(se.Branch)
		if err != nil {
			if s.h.Faulted() {
				return nil, fmt.Errorf("session %s: %w", se.Name, err) // the store as a whole failed
			}
			// One damaged session does not hide the others: it is listed, saying why.
			out = append(out, api.SessionInfo{Session: se, Clients: act.Clients[se.ID], LastActivity: se.Created, LastUsed: se.Created,
				Damaged: fmt.Sprintf("its log cannot be read (%v): exo verify %s names the bad event", err, se.Name)})
			continue
		}
		info := api.SessionInfo{Session: se, Status: st.Status, Head: st.Head, Model: st.Model, Steps: st.Steps,
			Usage: st.Usage, Cost: st.Cost, Clients: act.Clients[se.ID], Executor: st.Executor,
			LastActivity: lastActivity(se, st), LastUsed: lastUsed(se, st), LastPrompt: lastPrompt(st)}
		_, info.Running = act.Running[se.ID]
		if !info.Running && (info.Status == harness.StatusRunning || info.Status == harness.StatusWaiting) {
			info.Status = harness.StatusIdle // no executor runs it: the harness says so, not the log's last word
		}
		if gs, err := s.tracker.State(se.ID); err == nil {
			info.Drift, info.Conflicts = gs.Drift().Total, len(gs.Conflicts)
		}
		out = append(out, info)
	}
	return s.withPeers(out), nil
}

// Session resolves an id, a unique id prefix or a name.
func (s *Service) Session(ctx context.Context, ref string) (*harness.Session, error) {
	se, err := s.h.Session(ref)
	if !errors.Is(err, harness.ErrNoSession) || s.h.Store().Node() == "" {
		return se, err
	}
	if p, perr := s.h.ResolvePeer(ref); perr == nil {
		return p.Session, nil
	}
	return nil, err
}

// TakeOver makes another daemon's session this daemon's, and tells the clients.
func (s *Service) TakeOver(ctx context.Context, ref string) (*harness.Session, error) {
	se, err := s.h.TakeOver(ref)
	if err != nil {
		return se, err
	}
	s.h.Publish(harness.Notice{Session: se.ID})
	return se, nil
}

// NewSession creates a session with its first scope and governance records.
func (s *Service) NewSession(ctx context.Context, req api.NewSessionRequest) (*harness.Session, error) {
	if req.Workspace != "" {
		abs, err := filepath.Abs(req.Workspace)
		if err != nil {
			return nil, invalid(err)
		}
		req.Workspace = abs
		if err := workspaceFolder(abs); err != nil {
			return nil, invalid(err)
		}
	}
	recs, err := newSessionRecords(req)
	if err != nil {
		return nil, err
	}
	se, err := s.h.NewSession(harness.NewSessionOptions{Name: req.Name, Workspace: req.Workspace, Model: req.Model, Settings: req.Settings})
	if err != nil {
		return nil, invalid(err)
	}
	if len(recs) > 0 {
		if _, err := s.h.Append(se.ID, recs...); err != nil {
			return nil, err
		}
	}
	return se, nil
}

// newSessionRecords verifies the workspace's lock and returns the first records of a new
// session there: its scope.set (constitution defaults plus the request) and, when the user
// overrode stale governance, governance.overridden.
func newSessionRecords(req api.NewSessionRequest) ([]store.Record, error) {
	if req.Workspace == "" {
		return nil, nil
	}
	c, err := governance.VerifyLock(req.Workspace)
	var recs []store.Record
	switch {
	case errors.Is(err, governance.ErrGovernanceDrift) && req.OverrideGovernance:
		recs = append(recs, harness.MustRecord(governance.TypeGovernanceOverridden, harness.ActorUser,
			governance.GovernanceOverridden{Reason: err.Error()}))
		if _, sealed, lerr := governance.ReadLock(req.Workspace); lerr == nil {
			c = sealed
		}
	case err != nil:
		return nil, err
	}
	r := req.Scope
	if c == nil && len(r.Allow) == 0 && len(r.Deny) == 0 && r.Budget == 0 && r.Policy == "" {
		return recs, nil // no constitution and no flags: the default scope needs no event
	}
	sc, err := governance.NewScope(c, r)
	if err != nil {
		return nil, invalid(err)
	}
	return append([]store.Record{governance.ScopeRecord(sc, harness.ActorUser, "new")}, recs...), nil
}

// SetSetting sets or removes one of a session's settings.
func (s *Service) SetSetting(ctx context.Context, sessionID, key, value string) (*harness.Session, error) {
	if key == "" {
		return nil, invalidf("a setting needs a name")
	}
	if key == "model" && value != "" {
		if _, err := s.h.Model(value); err != nil {
			return nil, invalid(err)
		}
	}
	kind := api.BudgetKind(key)
	if kind != "" {
		v, err := api.ParseBudget(kind, value)
		if err != nil {
			return nil, invalid(err)
		}
		value = api.FormatBudget(v)
	}
	se, err := s.session(sessionID)
	if err != nil {
		return nil, err
	}
	var previous string
	se, err = s.h.UpdateSession(se.ID, func(x *harness.Session) error {
		if x.Settings == nil {
			x.Settings = map[string]string{}
		}
		previous = x.Settings[key]
		if value == "" {
			delete(x.Settings, key)
		} else {
			x.Settings[key] = value
		}
		return nil
	})
	if err == nil && kind != "" && previous != value {
		err = s.recordBudget(se, kind, previous, value)
	}
	return s.updated(se, err)
}

// recordBudget appends the budget.changed event of a budget the user changed: the log says
// when a spent budget was raised, and by how much. The setting is written first (a budget in
// force with no event, were the daemon killed between the two, errs on the side of the limit
// the user asked for).
func (s *Service) recordBudget(se *harness.Session, kind, previous, value string) error {
	was, _ := api.ParseBudget(kind, previous)
	now, _ := api.ParseBudget(kind, value)
	_, err := s.h.Append(se.ID, harness.MustRecord(api.TypeBudgetChanged, harness.ActorUser,
		api.BudgetChanged{Budget: kind, Limit: now, Previous: was}))
	if err != nil {
		return fmt.Errorf("record the %s budget's change: %w", kind, err)
	}
	return nil
}

// updated tells the watchers a session's new record (a change that is not an event), so that
// an app folding the stream shows it without reading the session again; it passes se and err on.
func (s *Service) updated(se *harness.Session, err error) (*harness.Session, error) {
	if err == nil && se != nil {
		s.h.Publish(harness.Notice{Session: se.ID, Updated: se})
	}
	return se, err
}

// Fork starts a sibling with its own working copy; a requested scope may only narrow.
func (s *Service) Fork(ctx context.Context, req api.ForkRequest) (*harness.Session, error) {
	src, err := s.session(req.Session)
	if err != nil {
		return nil, err
	}
	var recs []store.Record
	if req.Scope != nil {
		parent, err := governance.CurrentScope(s.h, src.ID)
		if err != nil {
			return nil, err
		}
		narrowed, err := governance.Narrow(parent, *req.Scope)
		if err != nil {
			return nil, invalid(err)
		}
		narrowed.Boundary = narrowed.Boundaries()
		recs = append(recs, governance.ScopeRecord(narrowed, harness.ActorUser, "fork"))
	}
	n, err := s.h.Fork(src.ID, req.Seq, harness.ForkOptions{Name: req.Name, Branch: req.Branch})
	if err != nil {
		return nil, err
	}
	if len(recs) > 0 {
		if _, err := s.h.Append(n.ID, recs...); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// Rewind continues a session from seq on a new branch; a turn running on it is stopped first.
func (s *Service) Rewind(ctx context.Context, sessionID string, seq uint64) (*harness.Session, error) {
	se, err := s.session(sessionID)
	if err != nil {
		return nil, err
	}
	if r := s.runningTurn(se.ID); r != nil {
		r.cancel()
		<-r.done
	}
	return s.h.Rewind(se.ID, seq)
}

// RewindPreview says what a rewind to seq would undo.
func (s *Service) RewindPreview(ctx context.Context, sessionID string, seq uint64) (api.RewindPlan, error) {
	n, files, err := s.h.RewindPreview(sessionID, seq)
	return api.RewindPlan{Seq: seq, Events: n, Files: files}, err
}

// Files lists the session's workspace for @path completion.
func (s *Service) Files(ctx context.Context, sessionID string) ([]string, error) {
	se, err := s.session(sessionID)
	if err != nil {
		return nil, err
	}
	return s.h.ListFiles(se.ID)
}

// Say appends a user message without running a turn.
//
// While a turn runs on the session, the message is queued instead (the prompt.queued event is
// returned): sent as the next turn's prompt when the turn ends.
func (s *Service) Say(ctx context.Context, sessionID, text, source string) (harness.Event, error) {
	if text == "" {
		return harness.Event{}, invalidf("empty message")
	}
	se, err := s.session(sessionID)
	if err != nil {
		return harness.Event{}, err
	}
	// While a turn runs, a message is queued for when it ends (prompt.queued), as a prompt is.
	if q, ok, err := s.enqueue(se, api.TurnRequest{Session: se.ID, Text: text, WhenBusy: api.BusyQueue}, source); ok || err != nil {
		if err != nil {
			return harness.Event{}, err
		}
		evs, err := s.h.BranchEvents(se.Branch, q.Seq+1, q.Seq+1)
		if err != nil || len(evs) == 0 {
			return harness.Event{}, fmt.Errorf("read the queued message back: %w", err)
		}
		return evs[0], nil
	}
	evs, err := s.h.Append(se.ID, harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser,
		harness.InvocationReceived{Text: text, Source: source}))
	if err != nil {
		return harness.Event{}, err
	}
	return evs[0], nil
}

// State returns the Session projection of a branch at its head.
func (s *Service) State(ctx context.Context, branch string) (*harness.SessionState, error) {
	return s.h.BranchState(branch)
}

// StateAt returns the Session projection of a branch as of seq.
func (s *Service) StateAt(ctx context.Context, branch string, seq uint64) (*harness.SessionState, error) {
	st, _, err := s.h.LoadState(branch, seq, true)
	return st, err
}

// Events returns events from..to of a branch's whole history.
func (s *Service) Events(ctx context.Context, branch string, from, to uint64) ([]harness.Event, error) {
	return s.h.BranchEvents(branch, from, to)
}

// BranchPoints counts the forks and rewinds taken at each seq of a branch's history.
func (s *Service) BranchPoints(ctx context.Context, branch string) (map[uint64]int, error) {
	return s.h.BranchPoints(branch)
}

// Verify recomputes hash chains.
func (s *Service) Verify(ctx context.Context, sessionID string) (harness.VerifyReport, error) {
	if sessionID != "" {
		se, err := s.session(sessionID)
		if err != nil {
			return harness.VerifyReport{}, err
		}
		sessionID = se.ID
	}
	return s.h.Verify(sessionID)
}

// Artifact opens an artifact by id or unique prefix.
func (s *Service) Artifact(ctx context.Context, id string) (io.ReadCloser, error) {
	r, err := s.h.OpenArtifact(id)
	if errors.Is(err, harness.ErrNoArtifact) {
		return nil, fmt.Errorf("%w: %w", api.ErrNotFound, err)
	}
	return r, err
}

// FileAtSnapshot returns a file as the session's newest snapshot holds it.
func (s *Service) FileAtSnapshot(ctx context.Context, sessionID, path string) (string, error) {
	return s.h.FileAtSnapshot(sessionID, path)
}

// lastActivity is when a session's log last changed (its creation when the projection has no
// time).
func lastActivity(se *harness.Session, st *harness.SessionState) time.Time {
	if st.LastActivity.IsZero() {
		return se.Created
	}
	return st.LastActivity
}

// lastUsed is when the user last prompted a session (its creation before the first prompt):
// changes a sibling's work makes in a shared workspace do not count.
func lastUsed(se *harness.Session, st *harness.SessionState) time.Time {
	if st.LastPromptAt.After(se.Created) {
		return st.LastPromptAt
	}
	return se.Created
}

// lastPrompt returns the newest user prompt of the projection's recent items, on one line
// and cut to 200 characters.
func lastPrompt(st *harness.SessionState) string {
	for i := len(st.Items) - 1; i >= 0; i-- {
		if st.Items[i].Kind == harness.ItemUser {
			line := strings.Join(strings.Fields(st.Items[i].Text), " ")
			if r := []rune(line); len(r) > 200 {
				line = string(r[:199]) + "…"
			}
			return line
		}
	}
	return ""
}

// workspaceFolder checks that a new session's workspace is a folder that exists: a session
// made on a mistyped path would only fail at its first turn, with a sandbox error.
func workspaceFolder(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("workspace %s: no such folder (create it, or give an existing one)", dir)
	case err != nil:
		return fmt.Errorf("workspace %s: %w", dir, err)
	case !fi.IsDir():
		return fmt.Errorf("workspace %s: not a folder", dir)
	}
	return nil
}

// PasteImage stores an image pasted from the clipboard for a session's prompts.
func (s *Service) PasteImage(ctx context.Context, req api.PasteImageRequest) (api.PastedImage, error) {
	if _, err := s.session(req.Session); err != nil {
		return api.PastedImage{}, err
	}
	mention, ref, err := s.h.PasteImage(req.Data)
	if err != nil {
		return api.PastedImage{}, invalid(err)
	}
	return api.PastedImage{Mention: mention, Image: *ref, Size: int64(len(req.Data))}, nil
}
