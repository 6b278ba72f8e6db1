package service

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"exo/harness"
	"exo/harness/api"
	"exo/store/failpoint"
)

// attemptRun is one member of a set this daemon runs: its turn, then its check.
type attemptRun struct {
	set, session, check string
	seconds             float64
	// prompts are sent one turn after another (a replay's); approvals answers the tool calls
	// the original answered, by tool and arguments.
	prompts     []string
	approvals   map[string]string
	autoApprove bool
	// outcome, when set before the turn ends, is why the set stopped it (budget).
	mu      sync.Mutex
	outcome string
	reason  string
}

// stopWith cancels the attempt's turn, recording why for its attempt.ended.
func (s *Service) stopAttempt(a *attemptRun, outcome, reason string) {
	a.mu.Lock()
	if a.outcome == "" {
		a.outcome, a.reason = outcome, reason
	}
	a.mu.Unlock()
	if r := s.runningTurn(a.session); r != nil {
		r.cancel()
	}
}

// StartAttempts forks one sibling per executor and model pair at req.Seq of a session, records
// the set, and starts every member's turn at once; each then runs, is checked and ends on its
// own. An executor or model a member cannot run fails that member alone.
func (s *Service) StartAttempts(ctx context.Context, req api.AttemptsRequest) (api.AttemptSet, error) {
	if strings.TrimSpace(req.Prompt) == "" {
		return api.AttemptSet{}, invalidf("the prompt is empty")
	}
	pairs := req.Pairs()
	if len(pairs) > api.MaxAttempts {
		return api.AttemptSet{}, invalidf("%d attempts: at most %d in one set", len(pairs), api.MaxAttempts)
	}
	src, err := s.session(req.Session)
	if err != nil {
		return api.AttemptSet{}, err
	}
	for _, p := range pairs {
		if p[1] == "" {
			continue
		}
		if _, err := s.h.Model(p[1]); err != nil {
			return api.AttemptSet{}, invalid(err)
		}
	}
	head, err := s.h.BranchState(src.Branch)
	if err != nil {
		return api.AttemptSet{}, err
	}
	seq := req.Seq
	if seq == 0 {
		seq = head.Head
	}
	if seq > head.Head {
		return api.AttemptSet{}, fmt.Errorf("seq %d is past the head (%d): %w", seq, head.Head, api.ErrBadSeq)
	}
	base, _, err := s.h.LoadState(src.Branch, seq, true)
	if err != nil {
		return api.AttemptSet{}, err
	}
	return s.startSet(ctx, src, seq, base, pairs, []string{req.Prompt}, nil, req, false)
}

// startSet forks the members of a set at seq of src, records the set and starts each
// member's first turn; each member then sends prompts one turn after another (answering the
// approvals given by tool and arguments as recorded), is checked and ends on its own.
func (s *Service) startSet(ctx context.Context, src *harness.Session, seq uint64, base *harness.SessionState, pairs [][2]string,
	prompts []string, approvals map[string]string, req api.AttemptsRequest, replay bool) (api.AttemptSet, error) {
	set := "att-" + harness.NewID()[6:16]
	started := api.AttemptsStarted{Set: set, AtSeq: seq, Prompt: strings.Join(prompts, "\n\n"), Check: req.Check, Budget: req.Budget, Replay: replay}
	members, err := s.forkMembers(src, seq, set, len(pairs))
	if err != nil {
		return api.AttemptSet{}, err
	}
	for i, p := range pairs {
		started.Members = append(started.Members, api.AttemptMember{Session: members[i].ID, Name: members[i].Name, Executor: p[0], Model: p[1]})
	}
	if _, err := s.h.Append(src.ID, harness.MustRecord(api.TypeAttemptsStarted, harness.ActorUser, started)); err != nil {
		return api.AttemptSet{}, err
	}
	runs := make([]*attemptRun, len(members))
	for i, m := range members {
		runs[i] = &attemptRun{set: set, session: m.ID, check: req.Check, seconds: req.Budget.Seconds, prompts: prompts, approvals: approvals, autoApprove: req.AutoApprove}
		if err := s.prepareAttempt(ctx, m, src, i, pairs[i], started, base); err != nil {
			s.endAttempt(runs[i], api.AttemptFailed, err.Error())
			runs[i] = nil
		}
	}
	for i, a := range runs {
		if a == nil {
			continue
		}
		s.followed.Store(a.session, set) // before its turn starts: a scoreboard read then sees it run
		t, err := s.StartTurn(ctx, api.TurnRequest{Session: a.session, Text: prompts[0], Source: "attempts", AutoApprove: req.AutoApprove})
		if err != nil {
			s.followed.Delete(a.session)
			s.endAttempt(a, api.AttemptFailed, err.Error())
			runs[i] = nil
			continue
		}
		s.wg.Add(1)
		go s.followAttempt(a, t.ID)
	}
	s.watchSetBudget(req.Budget, runs)
	return s.AttemptSet(ctx, set)
}

// forkMembers forks n siblings of src at seq in parallel, as many at once as there are CPUs
// (each gets its own working copy; the sandbox changes git's records of the repository's
// worktrees one at a time). A set is whole or not at all: when a fork fails, the others stay
// as siblings, each with an attempt.ended saying so.
func (s *Service) forkMembers(src *harness.Session, seq uint64, set string, n int) ([]*harness.Session, error) {
	members := make([]*harness.Session, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	width := s.forkWidth
	if width <= 0 {
		width = max(runtime.NumCPU(), 2) // each fork runs git processes: no more at once than the CPUs
	}
	slots := make(chan struct{}, width)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			members[i], errs[i] = s.h.Fork(src.ID, seq, harness.ForkOptions{Name: memberName(src.Name, set, i), Branch: src.Branch})
		}()
	}
	wg.Wait()
	err := errors.Join(errs...)
	if err == nil {
		return members, nil
	}
	for _, m := range members {
		if m != nil {
			_, _ = s.h.Append(m.ID, harness.MustRecord(api.TypeAttemptEnded, harness.ActorHarness,
				api.AttemptEnded{Set: set, Outcome: api.AttemptFailed, Reason: "the set could not be made: " + err.Error()}))
		}
	}
	for i, e := range errs {
		if e != nil {
			return nil, fmt.Errorf("attempts: fork %d of %d: %w", i+1, n, e)
		}
	}
	return nil, err
}

// memberName names a set's i-th member after the session it starts from.
func memberName(origin, set string, i int) string {
	if len(origin) > 96 {
		origin = origin[:96]
	}
	return fmt.Sprintf("%s.%s.%d", origin, set[4:10], i+1)
}

// prepareAttempt records a member's attempt.joined and gives it its executor, model and
// budgets (per attempt: on top of what the history it forked had spent).
func (s *Service) prepareAttempt(ctx context.Context, m, src *harness.Session, i int, pair [2]string, set api.AttemptsStarted, base *harness.SessionState) error {
	if _, err := s.h.Append(m.ID, harness.MustRecord(api.TypeAttemptJoined, harness.ActorHarness, api.AttemptJoined{
		Set: set.Set, Origin: src.ID, OriginName: src.Name, AtSeq: set.AtSeq, Index: i, Executor: pair[0], Model: pair[1], Check: set.Check})); err != nil {
		return err
	}
	if _, err := s.SetSetting(ctx, m.ID, api.SettingAttemptSet, set.Set); err != nil {
		return err
	}
	if pair[1] != "" {
		if _, err := s.SetSetting(ctx, m.ID, "model", pair[1]); err != nil {
			return fmt.Errorf("model %s: %w", pair[1], err)
		}
	}
	if pair[0] != "" {
		if _, err := s.SelectExecutor(ctx, m.ID, pair[0]); err != nil {
			return fmt.Errorf("executor %s: %w", pair[0], err)
		}
	}
	if b := set.Budget.Tokens; b > 0 {
		spent := float64(base.Usage.Input + base.Usage.Output)
		if _, err := s.SetSetting(ctx, m.ID, api.SettingBudgetTokens, strconv.FormatFloat(spent+b, 'f', -1, 64)); err != nil {
			return err
		}
	}
	if b := set.Budget.Cost; b > 0 {
		if _, err := s.SetSetting(ctx, m.ID, api.SettingBudgetCost, strconv.FormatFloat(base.Cost+b, 'f', -1, 64)); err != nil {
			return err
		}
	}
	return nil
}

// followAttempt waits for a member's turns (stopping them at its time budget), sends its
// further prompts one turn after another, runs the set's check in its sandbox and records how
// it ended.
func (s *Service) followAttempt(a *attemptRun, turnID string) {
	defer s.wg.Done()
	defer s.followed.Delete(a.session)
	ctx := s.ctx
	var timer <-chan time.Time
	if a.seconds > 0 {
		t := time.NewTimer(time.Duration(a.seconds * float64(time.Second)))
		defer t.Stop()
		timer = t.C
	}
	if len(a.approvals) > 0 {
		stop := s.answerAsRecorded(a)
		defer stop()
	}
	outcome, reason := api.AttemptDone, ""
	for i := 0; ; i++ {
		s.mu.Lock()
		r := s.turns[turnID]
		s.mu.Unlock()
		if r == nil {
			s.endAttempt(a, api.AttemptFailed, "its turn was lost")
			return
		}
		select {
		case <-r.done:
		case <-timer:
			s.stopAttempt(a, api.AttemptOverBudget, fmt.Sprintf("time budget of %gs spent", a.seconds))
			<-r.done
		case <-ctx.Done(): // the daemon stops: the next start records the attempt interrupted
			return
		}
		switch {
		case errors.Is(r.err, context.Canceled) || r.res.Cancelled:
			outcome, reason = api.AttemptCancelled, r.res.StopReason
		case r.err != nil:
			outcome, reason = api.AttemptFailed, s.h.Redact(r.err.Error())
		case r.res.Failure != "":
			outcome, reason = api.AttemptFailed, r.res.Failure
		}
		a.mu.Lock()
		stopped := a.outcome != ""
		a.mu.Unlock()
		if outcome != api.AttemptDone || stopped || i+1 >= len(a.prompts) || s.ctx.Err() != nil {
			break
		}
		t, err := s.StartTurn(ctx, api.TurnRequest{Session: a.session, Text: a.prompts[i+1], Source: "attempts", AutoApprove: a.autoApprove})
		if err != nil {
			outcome, reason = api.AttemptFailed, err.Error()
			break
		}
		turnID = t.ID
	}
	if s.ctx.Err() != nil {
		return
	}
	a.mu.Lock()
	if a.outcome != "" {
		outcome, reason = a.outcome, a.reason
	}
	a.mu.Unlock()
	if a.check != "" && outcome != api.AttemptCancelled {
		s.checkAttempt(ctx, a)
	}
	s.endAttempt(a, outcome, reason)
}

// approvalKey identifies a tool call by its tool and arguments (a replay answers the same call
// as the original did).
func approvalKey(tool string, args []byte) string { return tool + "\x00" + string(args) }

// answerAsRecorded answers a member's approval requests for the tool calls the original
// answered (same tool, same arguments) as it did; others wait for the user.
func (s *Service) answerAsRecorded(a *attemptRun) func() {
	ch, stop := s.h.SubscribeChanges(256)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := range ch {
			if n.Session != a.session {
				continue
			}
			for _, e := range n.Events {
				if e.Type != api.TypeApprovalRequested {
					continue
				}
				p, err := api.Decode(e)
				if err != nil {
					continue
				}
				q := p.(*api.ApprovalRequested)
				if d, ok := a.approvals[approvalKey(q.Tool, q.Args)]; ok {
					if err := s.Approve(s.ctx, a.session, q.CallID, d); err != nil {
						s.log.Warn("answer a replayed approval", "session", a.session, "err", err)
					}
				}
			}
		}
	}()
	return func() { stop(); <-done }
}

// Replay re-runs the user prompts a session recorded after seq (0: its start), turn by turn,
// in a fork at that point under another executor or model, answering the approvals the
// original answered for the same tool call; its scoreboard has the original as a row.
func (s *Service) Replay(ctx context.Context, req api.ReplayRequest) (api.AttemptSet, error) {
	src, err := s.session(req.Session)
	if err != nil {
		return api.AttemptSet{}, err
	}
	if req.Model != "" {
		if _, err := s.h.Model(req.Model); err != nil {
			return api.AttemptSet{}, invalid(err)
		}
	}
	evs, err := s.h.BranchEvents(src.Branch, 1, 0)
	if err != nil {
		return api.AttemptSet{}, err
	}
	var prompts []string
	approvals := map[string]string{}
	asked := map[string]string{}
	fork := req.From
	for _, e := range evs {
		if e.Seq <= req.From {
			continue
		}
		p, err := api.Decode(e)
		if err != nil {
			continue
		}
		switch d := p.(type) {
		case *api.InvocationReceived:
			if e.Actor != api.ActorUser {
				continue
			}
			if len(prompts) == 0 && req.From == 0 {
				fork = e.Seq - 1 // the session's start: what came before its first prompt
			}
			prompts = append(prompts, d.Text)
		case *api.ApprovalRequested:
			asked[d.CallID] = approvalKey(d.Tool, d.Args)
		case *api.ApprovalResolved:
			if k, ok := asked[d.CallID]; ok {
				approvals[k] = d.Decision
			}
		}
	}
	if len(prompts) == 0 {
		return api.AttemptSet{}, invalidf("session %s recorded no prompt after event %d", src.Name, req.From)
	}
	base, _, err := s.h.LoadState(src.Branch, fork, true)
	if err != nil {
		return api.AttemptSet{}, err
	}
	areq := api.AttemptsRequest{Session: src.ID, Seq: fork, Check: req.Check, Budget: req.Budget, AutoApprove: req.AutoApprove}
	return s.startSet(ctx, src, fork, base, [][2]string{{req.Executor, req.Model}}, prompts, approvals, areq, true)
}

// checkAttempt runs the set's check in the member's sandbox and records attempt.checked, its
// whole output kept as an artifact.
func (s *Service) checkAttempt(ctx context.Context, a *attemptRun) {
	p := api.AttemptChecked{Set: a.set, Command: a.check}
	res, err := s.h.Exec(ctx, a.session, a.check, harness.ExecOptions{Timeout: 10 * time.Minute})
	if err != nil {
		p.Error, p.ExitCode = s.h.Redact(err.Error()), -1
	} else {
		p.ExitCode, p.Killed, p.DurationMs = res.ExitCode, res.Killed, res.Duration.Milliseconds()
		p.Output = api.CheckTail(res.Output)
		p.Artifact = res.ArtifactRef
		if p.Artifact == "" {
			if id, err := s.h.SaveArtifact("check-output", []byte(res.Output)); err == nil {
				p.Artifact = id
			}
		}
	}
	if _, err := s.h.Append(a.session, harness.MustRecord(api.TypeAttemptChecked, harness.ActorHarness, p)); err != nil {
		s.log.Warn("record an attempt's check", "session", a.session, "err", err)
	}
}

// endAttempt records attempt.ended in a member's log.
func (s *Service) endAttempt(a *attemptRun, outcome, reason string) {
	if _, err := s.h.Append(a.session, harness.MustRecord(api.TypeAttemptEnded, harness.ActorHarness,
		api.AttemptEnded{Set: a.set, Outcome: outcome, Reason: reason})); err != nil {
		s.log.Warn("record an attempt's end", "session", a.session, "err", err)
	}
}

// watchSetBudget stops every running member of a set once the set together has spent its
// tokens or cost, or its time is up.
func (s *Service) watchSetBudget(b api.AttemptBudget, runs []*attemptRun) {
	if b.SetTokens <= 0 && b.SetCost <= 0 && b.SetSeconds <= 0 {
		return
	}
	live := map[string]*attemptRun{}
	for _, a := range runs {
		if a != nil {
			live[a.session] = a
		}
	}
	if len(live) == 0 {
		return
	}
	ch, stop := s.h.SubscribeChanges(256)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer stop()
		var timer <-chan time.Time
		if b.SetSeconds > 0 {
			t := time.NewTimer(time.Duration(b.SetSeconds * float64(time.Second)))
			defer t.Stop()
			timer = t.C
		}
		tokens, cost := 0, 0.0
		stopAll := func(reason string) {
			for _, a := range live {
				s.stopAttempt(a, api.AttemptOverBudget, reason)
			}
		}
		for len(live) > 0 {
			select {
			case <-s.ctx.Done():
				return
			case <-timer:
				stopAll(fmt.Sprintf("the set's time budget of %gs is spent", b.SetSeconds))
				return
			case n, ok := <-ch:
				if !ok {
					return
				}
				a := live[n.Session]
				if a == nil {
					continue
				}
				for _, e := range n.Events {
					switch e.Type {
					case api.TypeAttemptEnded:
						delete(live, n.Session)
					case api.TypeModelCompleted:
						if p, err := api.Decode(e); err == nil {
							c := p.(*api.ModelCompleted)
							tokens += c.Usage.Input + c.Usage.Output
							cost += c.Cost
						}
					}
				}
				if b.SetTokens > 0 && float64(tokens) >= b.SetTokens {
					stopAll(fmt.Sprintf("the set spent %d of its %g tokens", tokens, b.SetTokens))
					return
				}
				if b.SetCost > 0 && cost >= b.SetCost {
					stopAll(fmt.Sprintf("the set spent $%.4f of its $%g", cost, b.SetCost))
					return
				}
			}
		}
	}()
}

// RecoverAttempts records attempt.ended (interrupted) for the members whose attempt a stopped
// daemon left without an end: their turn was recorded interrupted by the harness's recovery.
// It runs when the service starts, before any client is answered.
func (s *Service) RecoverAttempts() error {
	all, err := s.h.Sessions()
	if err != nil {
		return err
	}
	for _, m := range all {
		set := m.Settings[api.SettingAttemptSet]
		if set == "" || s.runningTurn(m.ID) != nil || s.isFollowed(m.ID) {
			continue
		}
		// Only a turn cut short leaves an attempt unended (its projection, checkpointed, says
		// so at once); an attempt stopped during its check reads as interrupted all the same.
		if st, err := s.h.BranchState(m.Branch); err != nil || st.Status != api.StatusInterrupted {
			continue
		}
		row, joined, err := s.attemptRow(m)
		if err != nil || joined.Set != set || row.Status != api.AttemptInterrupted || row.Reason != "" {
			continue
		}
		s.endAttempt(&attemptRun{set: set, session: m.ID}, api.AttemptInterrupted, "exo stopped while the attempt ran")
	}
	return nil
}

// attemptRow folds a member's scoreboard row from its own events; joined is its attempt.joined.
func (s *Service) attemptRow(m *harness.Session) (api.AttemptRow, *api.AttemptJoined, error) {
	row := api.AttemptRow{Session: m.ID, Name: m.Name, Branch: m.Branch}
	// Whether the attempt runs is read before its events: an attempt that ends meanwhile has
	// its attempt.ended in them or was still running when they were read, never neither.
	running, followed := s.runningTurn(m.ID) != nil, s.isFollowed(m.ID)
	evs, err := s.h.BranchEvents(m.Branch, m.ParentSeq+1, 0)
	if err != nil {
		return row, nil, err
	}
	var joined *api.AttemptJoined
	for _, e := range evs {
		if e.Type == api.TypeAttemptJoined {
			if p, err := api.Decode(e); err == nil {
				joined = p.(*api.AttemptJoined)
			}
			break
		}
	}
	if joined == nil {
		return row, nil, fmt.Errorf("session %s is no attempt: %w", m.Name, api.ErrNotFound)
	}
	row.Executor, row.Model = joined.Executor, joined.Model
	api.AttemptScore(&row, evs)
	if row.Status == "" {
		switch {
		case running:
			row.Status = api.AttemptRunning
		case followed:
			row.Status = api.AttemptChecking
		default:
			row.Status = api.AttemptInterrupted
		}
	}
	if d, err := s.Drift(context.Background(), m.ID); err == nil {
		row.Drift = d.Drift.Total
	}
	return row, joined, nil
}

// isFollowed reports whether this daemon still follows an attempt of the session (its turn or
// its check).
func (s *Service) isFollowed(sessionID string) bool {
	_, ok := s.followed.Load(sessionID)
	return ok
}

// AttemptSet returns a set's scoreboard: ref is a set id, a member, or a session the set started
// from (its newest set).
func (s *Service) AttemptSet(ctx context.Context, ref string) (api.AttemptSet, error) {
	all, err := s.h.Sessions()
	if err != nil {
		return api.AttemptSet{}, err
	}
	set := ""
	if strings.HasPrefix(ref, "att-") {
		set = ref
	} else {
		se, err := s.session(ref)
		if err != nil {
			return api.AttemptSet{}, err
		}
		if set = se.Settings[api.SettingAttemptSet]; set == "" {
			if set, err = s.newestSet(se); err != nil {
				return api.AttemptSet{}, err
			}
		}
	}
	out := api.AttemptSet{ID: set}
	for _, m := range all {
		if m.Settings[api.SettingAttemptSet] != set {
			continue
		}
		row, joined, err := s.attemptRow(m)
		if err != nil || joined.Set != set {
			continue
		}
		out.Origin, out.OriginName, out.AtSeq, out.Check = joined.Origin, joined.OriginName, joined.AtSeq, joined.Check
		if out.Started.IsZero() || m.Created.Before(out.Started) {
			out.Started = m.Created
		}
		out.Rows = append(out.Rows, row)
	}
	if len(out.Rows) == 0 {
		return out, fmt.Errorf("attempt set %s: %w", ref, api.ErrNotFound)
	}
	if err := s.fillSet(&out); err != nil {
		return out, err
	}
	return out, nil
}

// fillSet reads the set's attempts.started (prompt, budget, order of members) and its
// attempt.kept from the original session's histories.
func (s *Service) fillSet(out *api.AttemptSet) error {
	o, err := s.h.Session(out.Origin)
	if err != nil {
		return nil // the original session was removed: the members still score
	}
	order := map[string]int{}
	for _, b := range o.Branches {
		evs, err := s.h.BranchEvents(b, out.AtSeq+1, 0)
		if err != nil {
			continue
		}
		for _, e := range evs {
			p, err := api.Decode(e)
			if err != nil {
				continue
			}
			switch d := p.(type) {
			case *api.AttemptsStarted:
				if d.Set == out.ID {
					out.Prompt, out.Budget, out.Replay = d.Prompt, d.Budget, d.Replay
					for i, m := range d.Members {
						order[m.Session] = i
					}
					if d.Replay && out.Original == nil {
						orig := api.AttemptRow{Session: o.ID, Name: o.Name + " (original)", Branch: b, Status: "original"}
						api.AttemptScore(&orig, evs[:max(int(e.Seq)-int(out.AtSeq)-1, 0)])
						orig.Status = "original"
						out.Original = &orig
					}
				}
			case *api.AttemptKept:
				if d.Set == out.ID && b == o.Branch {
					out.Kept = d.Session
				}
			}
		}
	}
	for i := range out.Rows {
		out.Rows[i].Kept = out.Rows[i].Session == out.Kept
	}
	sortByOrder(out.Rows, order)
	return nil
}

// sortByOrder puts rows in the order the set listed its members.
func sortByOrder(rows []api.AttemptRow, order map[string]int) {
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && order[rows[j].Session] < order[rows[j-1].Session]; j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
}

// newestSet finds the newest set started from a session's current history.
func (s *Service) newestSet(se *harness.Session) (string, error) {
	evs, err := s.h.BranchEvents(se.Branch, 1, 0)
	if err != nil {
		return "", err
	}
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == api.TypeAttemptsStarted || evs[i].Type == api.TypeAttemptKept {
			if p, err := api.Decode(evs[i]); err == nil {
				switch d := p.(type) {
				case *api.AttemptsStarted:
					return d.Set, nil
				case *api.AttemptKept:
					return d.Set, nil
				}
			}
		}
	}
	return "", fmt.Errorf("session %s started no attempts: %w", se.Name, api.ErrNotFound)
}

// KeepAttempt makes an attempt's history and files its original session's: the original moves
// onto a new branch continuing the attempt's (its own branch stays stored), its workspace takes
// the attempt's files; with req.Archive the set's other members are archived. Keeping again an
// attempt kept already (a keep cut short, asked again) only archives what is left.
func (s *Service) KeepAttempt(ctx context.Context, req api.KeepRequest) (api.KeepResult, error) {
	m, err := s.session(req.Attempt)
	if err != nil {
		return api.KeepResult{}, err
	}
	row, joined, err := s.attemptRow(m)
	if err != nil {
		return api.KeepResult{}, invalid(err)
	}
	if row.Status == api.AttemptRunning || row.Status == api.AttemptChecking {
		return api.KeepResult{}, fmt.Errorf("%w: attempt %s still runs; wait for it or cancel it", api.ErrBusy, m.Name)
	}
	o, err := s.session(joined.Origin)
	if err != nil {
		return api.KeepResult{}, err
	}
	if r := s.runningTurn(o.ID); r != nil {
		return api.KeepResult{}, fmt.Errorf("%w: a turn runs on %s", api.ErrBusy, o.Name)
	}
	set, err := s.AttemptSet(ctx, joined.Set)
	if err != nil {
		return api.KeepResult{}, err
	}
	kept := o
	if set.Kept != m.ID { // kept already (the original's branch continues it): only the archive is left to do
		kept, err = s.h.KeepBranch(o.ID, m.ID, api.TypeAttemptKept, func(from string, abandoned, at uint64) any {
			return api.AttemptKept{Set: joined.Set, Session: m.ID, Name: m.Name, Branch: m.Branch, AtSeq: at, FromBranch: from, AbandonedAt: abandoned}
		})
		if err != nil {
			return api.KeepResult{}, err
		}
	}
	res := api.KeepResult{Set: joined.Set, Session: kept}
	if !req.Archive {
		return res, nil
	}
	for _, r := range set.Rows {
		if r.Session == m.ID {
			continue
		}
		if se, err := s.h.Session(r.Session); err == nil && se.Archived {
			continue
		}
		if _, err := s.h.ArchiveSession(r.Session, true); err != nil {
			return res, fmt.Errorf("archive %s: %w", r.Name, err)
		}
		failpoint.Hit("keep.archived") // tests kill exo between two archives
		res.Archived = append(res.Archived, r.Name)
	}
	return res, nil
}
