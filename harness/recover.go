package harness

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"

	"exo/harness/api"
	"exo/sandbox"
	"exo/store"
)

// Recover puts EXO_HOME back in order after a process that held it died (kill -9, a crash, a
// power cut): journaled operations are completed (restores) or rolled back (half-made fork
// copies), stale git locks and temporary objects are removed from shadow repositories once no
// live process uses them, and turns that were running are recorded as interrupted (their open
// tool calls closed). Open runs it, while holding EXO_HOME's lock, so nothing else is running;
// a daemon that owns turns runs it when it starts. A damaged store is left alone.
func (h *Harness) Recover() RecoveryReport {
	var rep RecoveryReport
	if h.st.Damaged() != nil {
		return rep
	}
	h.recoverShadows(&rep)
	h.sweepBackups(&rep)
	h.recoverJournal(&rep)
	h.recoverTurns(&rep)
	h.dropStreamed(&rep)
	h.mu.Lock()
	h.recovery = rep
	h.mu.Unlock()
	return rep
}

// Recovery returns what the last Recover did.
func (h *Harness) Recovery() RecoveryReport {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.recovery
}

// recoverShadows clears stale locks of every shadow repository.
func (h *Harness) recoverShadows(rep *RecoveryReport) {
	dirs, _ := filepath.Glob(filepath.Join(h.Home(), "shadow", "*.git"))
	for _, d := range dirs {
		if err := sandbox.RecoverShadow(d); err != nil {
			rep.Problems = append(rep.Problems, err.Error())
		}
	}
}

// recoverJournal completes or rolls back every operation a dead process left in the journal.
func (h *Harness) recoverJournal(rep *RecoveryReport) {
	entries, err := h.journal()
	if err != nil {
		rep.Problems = append(rep.Problems, "read the journal: "+err.Error())
		return
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Started.Before(entries[j].Started) })
	for _, e := range entries {
		switch e.Op {
		case opForkClone:
			if err := h.rollbackClone(e); err != nil {
				rep.Problems = append(rep.Problems, err.Error())
				continue
			}
			rep.RolledBack = append(rep.RolledBack, e.Dir)
		case opDelete:
			if _, problems := h.finishDelete(e); len(problems) > 0 {
				rep.Problems = append(rep.Problems, problems...)
				continue
			}
			rep.Completed = append(rep.Completed, "removal of session "+e.Session+"'s files")
		case opAnswer: // a streaming answer: recoverTurns records it with its turn
		case opUnreadable:
			if _, ok := streamedBranch(e.ID); ok {
				continue // a streaming answer's: dropStreamed drops it
			}
			rep.Problems = append(rep.Problems, fmt.Sprintf("journal entry %s is unreadable (%s): its operation cannot be completed; the files it touched may not match the log", e.ID, e.Damage))
		case opRestore:
			if err := h.finishRestore(e); err != nil {
				rep.Problems = append(rep.Problems, err.Error())
				continue
			}
			rep.Completed = append(rep.Completed, fmt.Sprintf("restore of %s to event %d", e.Session, e.Seq))
		default:
			rep.Problems = append(rep.Problems, fmt.Sprintf("journal entry %s: unknown operation %q (a newer exo?)", e.ID, e.Op))
		}
	}
}

// finishRestore does a journaled restore again, unless its session moved to another branch
// since (the files then follow that branch, and the entry is only dropped).
func (h *Harness) finishRestore(e journalEntry) error {
	s, err := h.Session(e.Session)
	if err != nil || s.Branch != e.Branch || s.Workspace == "" {
		return h.st.Update(func(tx *store.Tx) error { return dropJournal(tx, e.ID) })
	}
	if err := h.restoreCommit(s, e.Commit, e.Seq, e.ID); err != nil {
		return fmt.Errorf("finish restoring %s to event %d: %w", s.Name, e.Seq, err)
	}
	return nil
}

// recoverTurns records every turn a dead process was running as interrupted.
func (h *Harness) recoverTurns(rep *RecoveryReport) {
	all, err := h.Sessions()
	if err != nil {
		rep.Problems = append(rep.Problems, "list sessions: "+err.Error())
		return
	}
	for _, s := range all {
		recs, err := h.interruptedRecords(s.Branch, ReasonStopped)
		if err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("session %s: %v", s.Name, err))
			continue
		}
		if len(recs) == 0 {
			continue
		}
		if _, err := h.AppendOn(s.ID, s.Branch, recs...); err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("session %s: %v", s.Name, err))
			continue
		}
		rep.Interrupted = append(rep.Interrupted, s.Name)
	}
}

// interruptedText is the result recorded for a tool call whose process died.
const interruptedText = "exo stopped before this call finished; it may or may not have taken effect"

// Reasons recorded on a turn.interrupted that closes a turn its process did not end.
const (
	// ReasonStopped: the daemon that ran the turn stopped (killed, crashed, a power cut).
	ReasonStopped = "exo stopped during the turn (killed or crashed); nothing after the last recorded event is known to have happened"
	// ReasonStoreLost: the shared store stopped answering during the turn.
	ReasonStoreLost = "the store was unreachable during the turn (etcd lost quorum, or this daemon was cut off from it); nothing after the last recorded event is known to have happened"
)

// ReasonTakenOver is the reason recorded when a daemon takes over a session whose daemon left
// a turn open: that daemon stopped, or was cut off from the cluster for longer than its lease.
func ReasonTakenOver(node string) string {
	return "daemon " + node + " stopped answering the cluster during the turn (it stopped, crashed, or was cut off from the cluster for longer than its lease) and this daemon took the session over; nothing after the last recorded event is known to have happened"
}

// CloseCutTurn records, on a session of this daemon no turn runs on, the turn the store's
// outage cut (its open tool calls closed, turn.interrupted with ReasonStoreLost). It reports
// whether there was one.
func (h *Harness) CloseCutTurn(id string) (bool, error) {
	s, err := h.Session(id)
	if err != nil {
		return false, err
	}
	recs, err := h.interruptedRecords(s.Branch, ReasonStoreLost)
	if err != nil || len(recs) == 0 {
		return false, err
	}
	if _, err := h.AppendOn(s.ID, s.Branch, recs...); err != nil {
		return false, fmt.Errorf("close the turn the store's outage cut on %s: %w", s.Name, err)
	}
	return true, nil
}

// interruptedRecords returns what closes a branch's unfinished turn: an interrupted result for
// every open tool call and, when a turn was running, turn.interrupted saying why. None when it
// is at rest.
func (h *Harness) interruptedRecords(branch, reason string) ([]store.Record, error) {
	if resting, err := h.atRest(branch); err != nil || resting {
		return nil, err
	}
	st, _, err := h.LoadState(branch, 0, true)
	if err != nil {
		return nil, err
	}
	running := st.Status == StatusRunning || st.Status == StatusWaiting || st.ModelInFlight != 0
	if !running && len(st.OpenCalls) == 0 && st.CompactionInFlight == 0 {
		return nil, nil
	}
	var recs []store.Record
	if st.ModelInFlight != 0 {
		if rec, ok := h.killedAnswer(branch, st.ModelInFlight); ok {
			recs = append(recs, rec)
		}
	}
	if st.CompactionInFlight != 0 { // a summary was streaming: not applied, its prompt counted
		recs = append(recs, h.interruptedCompaction(branch, st.CompactionInFlight))
	}
	for _, id := range openCallsInOrder(st.OpenCalls) {
		recs = append(recs, MustRecord(TypeToolCompleted, ActorHarness, ToolCompleted{CallID: id, Tool: h.toolOf(branch, st.OpenCalls[id]),
			Interrupted: true, IsError: true, Output: interruptedText}))
	}
	if running {
		recs = append(recs, MustRecord(TypeTurnInterrupted, ActorHarness, TurnInterrupted{
			Reason:        reason,
			ModelInFlight: st.ModelInFlight, OpenCalls: len(st.OpenCalls)}))
		for _, q := range st.Queued { // they waited for the turn's end, which never came
			recs = append(recs, MustRecord(api.TypePromptUnqueued, ActorHarness, api.PromptUnqueued{ID: q.ID, Reason: api.UnqueueDropped}))
		}
	}
	return recs, nil
}

// killedAnswer returns the answer that was streaming, in reply to the model.requested at seq,
// when the process died, as far as it had been saved: a model.completed cut by the kill, its
// usage exo's estimate. None when nothing was saved for that request.
func (h *Harness) killedAnswer(branch string, seq uint64) (store.Record, bool) {
	e, ok, err := h.Streamed(branch)
	if err != nil || !ok || e.Seq != seq || e.Answer.Text == "" {
		return store.Record{}, false
	}
	actor := ActorHarness
	if evs, err := h.st.ReadRange(branch, seq, seq); err == nil && len(evs) == 1 {
		actor = evs[0].Actor
	}
	a := e.Answer
	return MustRecord(TypeModelCompleted, actor, ModelCompleted{Model: a.Model, Text: a.Text, Usage: a.Usage, Cost: a.Cost,
		StopReason: "cut", Cut: api.CutKilled, UsageEstimated: true}), true
}

// dropStreamed removes the streaming answers saved by the dead process, recorded or not: no
// answer streams while Recover runs.
func (h *Harness) dropStreamed(rep *RecoveryReport) {
	entries, err := h.journal()
	if err != nil {
		return
	}
	for _, e := range entries {
		branch, ok := streamedBranch(e.ID)
		if !ok || (e.Op != opAnswer && e.Op != opUnreadable) {
			continue
		}
		if err := h.DropStreamed(branch); err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("drop the answer saved for %s: %v", branch, err))
			continue
		}
		if e.Op == opUnreadable { // the turn is recorded interrupted all the same, without its text
			rep.Completed = append(rep.Completed, fmt.Sprintf("removal of the unreadable answer saved for %s (%s)", branch, e.Damage))
		}
	}
}

// atRest tells from a branch's last event alone, when it can, that no turn is running there,
// so that opening a home with many idle sessions does not fold every one of them.
func (h *Harness) atRest(branch string) (bool, error) {
	head, _, err := h.st.Head(branch)
	if err != nil || head == 0 {
		return head == 0, err
	}
	evs, err := h.st.ReadRange(branch, head, head)
	if err != nil || len(evs) != 1 {
		return false, err
	}
	last := evs[0]
	switch last.Type {
	case TypeSessionCreated, TypeInvocationReceived, TypeTurnCancelled, TypeTurnStepLimit, TypeTurnInterrupted, TypeModelFailed,
		TypeSessionFinished, TypeSessionSuspended, TypeSessionResumed, TypeSessionRewound:
		return true, nil
	case TypeModelCompleted:
		var p ModelCompleted
		return json.Unmarshal(last.Data, &p) == nil && len(p.ToolCalls) == 0, nil
	}
	return false, nil
}

// interruptedCompaction closes the compaction.started at seq with the estimated cost it
// recorded: the summary was never applied, so the history stays whole.
func (h *Harness) interruptedCompaction(branch string, seq uint64) store.Record {
	var p api.CompactionStarted
	if evs, err := h.st.ReadRange(branch, seq, seq); err == nil && len(evs) == 1 {
		_ = json.Unmarshal(evs[0].Data, &p)
	}
	return MustRecord(api.TypeCompactionCost, ActorHarness, api.InterruptedCompaction(p))
}

// toolOf returns the tool named by the tool.started event at seq.
func (h *Harness) toolOf(branch string, seq uint64) string {
	evs, err := h.st.ReadRange(branch, seq, seq)
	if err != nil || len(evs) == 0 {
		return ""
	}
	var p ToolStarted
	_ = json.Unmarshal(evs[0].Data, &p)
	return p.Tool
}

// openCallsInOrder lists open call ids by the seq of their tool.started.
func openCallsInOrder(open map[string]uint64) []string {
	ids := make([]string, 0, len(open))
	for id := range open {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return open[ids[i]] < open[ids[j]] })
	return ids
}

// unfinished reports journaled operations still open: Recover could not finish them when this
// process opened the store (the reason is in Recovery), so the files may not match the log.
func (h *Harness) unfinished() []store.Problem {
	entries, err := h.journal()
	if err != nil {
		return []store.Problem{{Branch: "journal", Reason: err.Error()}}
	}
	var out []store.Problem
	for _, e := range entries {
		if e.Op == opUnreadable {
			out = append(out, store.Problem{Branch: "journal", Reason: fmt.Sprintf("journal entry %s is unreadable (%s); see exo doctor", e.ID, e.Damage)})
			continue
		}
		out = append(out, store.Problem{Branch: firstNonEmpty(e.Branch, "journal"), Seq: e.Seq,
			Reason: fmt.Sprintf("unfinished %s (started %s) could not be completed on open; see exo doctor", e.Op, e.Started.Format("2006-01-02 15:04:05"))})
	}
	return out
}
