package sessions

import (
	"fmt"
	"sort"

	"exo/harness/api"
	"exo/harness/eventlog"
)

// RewindPreview says what rewinding a session to seq would undo: how many events leave the live
// history and which workspace files would change back. A seq past the head is refused as
// Rewind refuses it, so nobody is asked to confirm a rewind that cannot happen.
func (sv *Directory) RewindPreview(sessionID string, seq uint64) (events int, files []string, err error) {
	s, err := sv.Session(sessionID)
	if err != nil {
		return 0, nil, err
	}
	head, _, err := sv.st.Head(s.Branch)
	if err != nil {
		return 0, nil, err
	}
	if seq > head {
		return 0, nil, fmt.Errorf("rewind %s: seq %d is past the head (%d): %w", s.Name, seq, head, api.ErrBadSeq)
	}
	evs, err := sv.st.ReadRange(s.Branch, seq+1, 0)
	if err != nil {
		return 0, nil, err
	}
	set := map[string]bool{}
	for _, e := range evs {
		if e.Type != api.TypeWorkspaceSnapshot {
			continue
		}
		p, err := api.Decode(eventlog.EventOf(e))
		if err != nil {
			continue
		}
		for _, c := range p.(*api.WorkspaceSnapshot).Changed {
			set[c.Path] = true
			if c.From != "" {
				set[c.From] = true
			}
		}
	}
	for f := range set {
		files = append(files, f)
	}
	sort.Strings(files)
	return len(evs), files, nil
}

// BranchPoints returns, for a branch's history, the seqs where other branches (forks and
// abandoned rewinds) start, with how many start there.
func (sv *Directory) BranchPoints(branch string) (map[uint64]int, error) {
	lineage, err := sv.st.Lineage(branch)
	if err != nil {
		return nil, err
	}
	limit := map[string]uint64{}
	for _, sg := range lineage {
		limit[sg.Branch] = sg.To
	}
	all, err := sv.st.Branches()
	if err != nil {
		return nil, err
	}
	out := map[uint64]int{}
	for _, b := range all {
		if b.Parent == "" {
			continue
		}
		if to, ok := limit[b.Parent]; ok && b.ForkSeq <= to && b.ForkSeq > 0 {
			out[b.ForkSeq]++
		}
	}
	return out, nil
}

// CommonHistory returns how many events two branches' histories share from the start: after a
// rewind, what a reader of the old branch saw up to that seq is still the session's history.
func (sv *Directory) CommonHistory(a, b string) (uint64, error) {
	la, err := sv.st.Lineage(a)
	if err != nil {
		return 0, err
	}
	lb, err := sv.st.Lineage(b)
	if err != nil {
		return 0, err
	}
	var n uint64
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i].Branch != lb[i].Branch || la[i].From != lb[i].From {
			break
		}
		n = min(la[i].To, lb[i].To)
		if la[i].To != lb[i].To {
			break
		}
	}
	return n, nil
}
