package store

import (
	"fmt"
	"os"
	"sort"
)

// Problem names an event whose stored form breaks the hash chain.
type Problem struct {
	Branch string `json:"branch"`
	Seq    uint64 `json:"seq"`
	Reason string `json:"reason"`
}

// Error describes the problem in one line.
func (p Problem) Error() string {
	return fmt.Sprintf("%s@%d: %s", p.Branch, p.Seq, p.Reason)
}

// VerifyReport is the outcome of a verification.
type VerifyReport struct {
	Branches int       `json:"branches"`
	Events   int       `json:"events"`
	Problems []Problem `json:"problems,omitempty"`
}

// OK reports whether every checked chain holds.
func (r VerifyReport) OK() bool { return len(r.Problems) == 0 }

// VerifyBranch recomputes the hash chain of a branch's whole history, ancestry included.
func (s *Store) VerifyBranch(id string) (rep VerifyReport, err error) {
	err = s.View(func(tx *Tx) error {
		head, err := tx.rawHead(id)
		if err != nil {
			return err
		}
		segs, err := tx.segments(id, head)
		if err != nil {
			return err
		}
		var prev Hash
		rep.Branches = len(segs)
		for _, sg := range segs {
			if prev, err = tx.verifySegment(sg, prev, &rep); err != nil {
				return err
			}
		}
		return nil
	})
	return rep, err
}

// VerifyAll checks everything: the file's page structure, every branch's head record against
// its last stored event, and the own events of every branch, each chained from its fork point.
// Problems make the store refuse writes from then on (see Damaged); a clean report lifts that.
// A read the engine did not complete (the cluster did not answer) ends the verification with
// its error: it is no problem of what is stored, and the damage verdict stays as it was.
func (s *Store) VerifyAll() (rep VerifyReport, err error) {
	for _, p := range s.filePages() {
		rep.Problems = append(rep.Problems, Problem{Branch: DBName, Reason: p})
	}
	err = s.View(func(tx *Tx) error {
		if herr := tx.checkHeads(); isRequestError(herr) {
			return herr
		} else if herr != nil {
			rep.Problems = append(rep.Problems, Problem{Branch: "heads", Reason: herr.Error()})
		}
		return tx.verifyChains(&rep)
	})
	switch {
	case err != nil:
	case rep.OK():
		s.clearDamage()
	default:
		s.markDamaged(rep.Problems[0])
	}
	return rep, err
}

// verifyChains checks the own events of every branch, oldest branch first. It stops at a read
// the engine did not complete, and returns it.
func (t *Tx) verifyChains(rep *VerifyReport) error {
	all, err := t.Branches()
	if err != nil {
		return err
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Created.Before(all[j].Created) })
	for _, b := range all {
		rep.Branches++
		prev, perr := t.forkHash(b)
		if isRequestError(perr) {
			return perr
		}
		if perr != nil {
			rep.Problems = append(rep.Problems, Problem{Branch: b.ID, Seq: b.ForkSeq + 1, Reason: perr.Error()})
			continue
		}
		head, err := t.rawHead(b.ID)
		if isRequestError(err) {
			return err
		}
		if err != nil {
			rep.Problems = append(rep.Problems, Problem{Branch: b.ID, Seq: b.ForkSeq + 1, Reason: err.Error()})
			continue
		}
		if first, err := t.firstOwnSeq(b.ID); isRequestError(err) {
			return err
		} else if err != nil {
			rep.Problems = append(rep.Problems, Problem{Branch: b.ID, Seq: b.ForkSeq + 1, Reason: err.Error()})
			continue
		} else if first != 0 && first != b.ForkSeq+1 {
			rep.Problems = append(rep.Problems, Problem{Branch: b.ID, Seq: b.ForkSeq + 1,
				Reason: fmt.Sprintf("its own events start at %d but it forked at %d (the branch record or its events were changed)", first, b.ForkSeq)})
			continue
		}
		if _, err := t.verifySegment(segment{branch: b.ID, from: b.ForkSeq + 1, to: head}, prev, rep); err != nil {
			return err
		}
	}
	return nil
}

// filePages walks the file's pages with plain reads while holding the writer lock, so the
// newest meta and the pages it reaches stay put; it returns the problems found.
func (s *Store) filePages() (problems []string) {
	if s.db == nil {
		return nil // not a local file
	}
	err := guard(s.Path(), func() error {
		// A home opened read-only has no writer to hold off (nothing can write the file).
		tx, err := s.db.Begin(s.readOnly == nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		f, err := os.Open(s.Path())
		if err != nil {
			return err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		m, err := checkMetas(f, fi.Size())
		if err != nil {
			return err
		}
		problems = mappedPages(f, fi.Size(), m)
		return nil
	})
	if err != nil {
		problems = append(problems, err.Error())
	}
	return problems
}

// forkHash returns the stored hash of the parent's event a branch forked at.
func (t *Tx) forkHash(b Branch) (Hash, error) {
	if b.ForkSeq == 0 {
		return Hash{}, nil
	}
	h, err := t.eventHash(b.Parent, b.ForkSeq)
	if isRequestError(err) {
		return Hash{}, fmt.Errorf("fork point %s@%d: %w", b.Parent, b.ForkSeq, err)
	}
	if err != nil {
		return Hash{}, fmt.Errorf("fork point %s@%d unreadable: %v", b.Parent, b.ForkSeq, err)
	}
	return h, nil
}

// firstOwnSeq returns the seq of a branch's first own event, 0 when it has none.
func (t *Tx) firstOwnSeq(id string) (uint64, error) {
	own, err := t.ownEvents(id)
	if err != nil {
		return 0, err
	}
	var first uint64
	err = own.keys(nil, func(k []byte) (bool, error) {
		first = keySeq(k)
		return false, nil
	})
	if err != nil {
		return 0, fmt.Errorf("first event of %s: %w", id, err)
	}
	return first, nil
}

// rawHead returns a branch's head seq from keys alone, without decoding events.
func (t *Tx) rawHead(id string) (uint64, error) {
	br, err := t.Branch(id)
	if err != nil {
		return 0, err
	}
	own, err := t.ownEvents(id)
	if err != nil {
		return 0, err
	}
	k, err := lastKey(own)
	if err != nil {
		return 0, fmt.Errorf("head of %s: %w", id, err)
	}
	if k != nil {
		return keySeq(k), nil
	}
	return br.ForkSeq, nil
}

// verifySegment checks one segment's events against the chain starting at prev and returns
// the last stored hash. Problems are added to rep; a read the engine did not complete is
// returned instead.
func (t *Tx) verifySegment(sg segment, prev Hash, rep *VerifyReport) (Hash, error) {
	own, err := t.ownEvents(sg.branch)
	if isRequestError(err) {
		return prev, err
	}
	if err != nil {
		rep.Problems = append(rep.Problems, Problem{Branch: sg.branch, Seq: sg.from, Reason: err.Error()})
		return prev, nil
	}
	want := sg.from
	err = own.scan(seqKey(sg.from), func(k, v []byte) (bool, error) {
		seq := keySeq(k)
		if seq > sg.to {
			return false, nil
		}
		rep.Events++
		if seq != want {
			rep.Problems = append(rep.Problems, Problem{Branch: sg.branch, Seq: want, Reason: fmt.Sprintf("missing; next stored event is %d", seq)})
			want = seq
		}
		want++
		e, err := t.s.codec.Decode(sg.branch, v)
		if err == nil {
			err = ValidData(e)
		}
		if err != nil {
			rep.Problems = append(rep.Problems, Problem{Branch: sg.branch, Seq: seq, Reason: err.Error()})
			if e.Hash != (Hash{}) {
				prev = e.Hash // its hash was read: the next event is judged on its own
			}
			return true, nil
		}
		if e.Seq != seq {
			rep.Problems = append(rep.Problems, Problem{Branch: sg.branch, Seq: seq, Reason: fmt.Sprintf("stored under key %d but says seq %d", seq, e.Seq)})
		}
		if got := ComputeHash(prev, &e); got != e.Hash {
			stored, computed := e.Hash.Short(), got.Short()
			if stored == computed { // they differ further on: short forms that agree say nothing
				stored, computed = e.Hash.String(), got.String()
			}
			rep.Problems = append(rep.Problems, Problem{Branch: sg.branch, Seq: seq, Reason: fmt.Sprintf("hash mismatch: stored %s, content hashes to %s", stored, computed)})
		}
		prev = e.Hash
		return true, nil
	})
	if isRequestError(err) {
		return prev, err
	}
	if err != nil {
		rep.Problems = append(rep.Problems, Problem{Branch: sg.branch, Seq: want, Reason: err.Error()})
	}
	return prev, nil
}
