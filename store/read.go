package store

import (
	"fmt"
	"iter"
)

// Event returns the event at seq of a branch's history (which may be stored in an ancestor).
func (t *Tx) Event(branch string, seq uint64) (Event, error) {
	if seq == 0 {
		return Event{}, fmt.Errorf("event %s@0: %w", branch, ErrBadSeq)
	}
	owner, err := t.owner(branch, seq)
	if err != nil {
		return Event{}, err
	}
	own, err := t.ownEvents(owner)
	if err != nil {
		return Event{}, err
	}
	v, err := own.get(seqKey(seq))
	if err != nil {
		return Event{}, fmt.Errorf("event %s@%d: %w", branch, seq, err)
	}
	if v == nil {
		return Event{}, fmt.Errorf("event %s@%d: %w", branch, seq, ErrBadSeq)
	}
	e, err := t.s.codec.Decode(owner, v)
	if err != nil {
		return Event{}, fmt.Errorf("event %s@%d: %v: %w", owner, seq, err, ErrCorrupt)
	}
	return e, nil
}

// eventHash returns the hash of the event at seq of a branch's history, as Event does without
// decompressing its body.
func (t *Tx) eventHash(branch string, seq uint64) (Hash, error) {
	if seq == 0 {
		return Hash{}, fmt.Errorf("event %s@0: %w", branch, ErrBadSeq)
	}
	owner, err := t.owner(branch, seq)
	if err != nil {
		return Hash{}, err
	}
	own, err := t.ownEvents(owner)
	if err != nil {
		return Hash{}, err
	}
	v, err := own.get(seqKey(seq))
	if err != nil {
		return Hash{}, fmt.Errorf("event %s@%d: %w", branch, seq, err)
	}
	if v == nil {
		return Hash{}, fmt.Errorf("event %s@%d: %w", branch, seq, ErrBadSeq)
	}
	got, h, err := t.s.codec.decodeHead(owner, v)
	if err == nil && got != seq {
		err = fmt.Errorf("event key %d holds seq %d", seq, got)
	}
	if err != nil {
		return Hash{}, fmt.Errorf("event %s@%d: %v: %w", owner, seq, err, ErrCorrupt)
	}
	return h, nil
}

// Events iterates over seqs from..to (inclusive; to 0 means the head) of a branch's full
// history, across its ancestry, oldest first. It stops at the first error, which it yields.
func (t *Tx) Events(branch string, from, to uint64) iter.Seq2[Event, error] {
	return t.events(branch, from, to, nil)
}

// events is Events with the payloads put in a (nil: each in memory of its own).
func (t *Tx) events(branch string, from, to uint64, a *arena) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		segs, err := t.rangeSegments(branch, from, to)
		if err != nil {
			yield(Event{}, err)
			return
		}
		for _, sg := range segs {
			if !t.yieldSegment(sg, a, yield) {
				return
			}
		}
	}
}

// rangeSegments resolves the segments of branch's history that cover from..to.
func (t *Tx) rangeSegments(branch string, from, to uint64) ([]segment, error) {
	head, _, err := t.Head(branch)
	if err != nil {
		return nil, err
	}
	if to == 0 || to > head {
		to = head
	}
	if from == 0 {
		from = 1
	}
	segs, err := t.segments(branch, to)
	if err != nil {
		return nil, err
	}
	var out []segment
	for _, sg := range segs {
		if sg.to < from {
			continue
		}
		sg.from = max(sg.from, from)
		out = append(out, sg)
	}
	return out, nil
}

// yieldSegment yields the events of one segment, their payloads in a (nil: each in memory of
// its own); it returns false when iteration must stop.
func (t *Tx) yieldSegment(sg segment, a *arena, yield func(Event, error) bool) bool {
	own, err := t.ownEvents(sg.branch)
	if err != nil {
		yield(Event{}, err)
		return false
	}
	want := sg.from
	stop := false
	err = own.scan(seqKey(sg.from), func(k, v []byte) (bool, error) {
		if keySeq(k) > sg.to {
			return false, nil
		}
		e, err := t.s.codec.decode(sg.branch, v, a)
		if err == nil && (e.Seq != keySeq(k) || e.Seq != want) {
			err = fmt.Errorf("event key %d holds seq %d, want %d", keySeq(k), e.Seq, want)
		}
		if err != nil {
			yield(Event{}, fmt.Errorf("read %s@%d: %v: %w", sg.branch, keySeq(k), err, ErrCorrupt))
			stop = true
			return false, nil
		}
		if !yield(e, nil) {
			stop = true
			return false, nil
		}
		want++
		return true, nil
	})
	if err != nil {
		yield(Event{}, fmt.Errorf("read %s: %w", sg.branch, err))
		return false
	}
	if stop {
		return false
	}
	if want <= sg.to {
		yield(Event{}, fmt.Errorf("read %s: event %d is missing: %w", sg.branch, want, ErrCorrupt))
		return false
	}
	return true
}

// ReadRange returns seqs from..to (to 0 means the head) of a branch's history as a slice.
func (s *Store) ReadRange(branch string, from, to uint64) ([]Event, error) {
	var out []Event
	if to >= from && to != 0 {
		out = make([]Event, 0, min(to-from+1, 4096))
	}
	err := s.View(func(tx *Tx) error {
		for e, err := range tx.Events(branch, from, to) {
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// ScanRange hands seqs from..to (to 0 means the head) of a branch's history to fn, oldest
// first, a page at a time: each page read in a read transaction of its own (none is open while
// fn runs) and decoded into memory that the next page reuses, so fn must not keep the slice or
// an event's Data once it returns (the strings it may keep). A page holds at most scanPage
// events and little more than scanBytes of payloads. ScanRange returns fn's error as it is.
// Reading a long history this way costs no allocation per event (ReadRange: one each).
func (s *Store) ScanRange(branch string, from, to uint64, fn func([]Event) error) error {
	var a arena
	page := make([]Event, 0, scanPage)
	from = max(from, 1)
	for {
		page = page[:0]
		a.reset()
		err := s.View(func(tx *Tx) error {
			if to == 0 {
				head, _, err := tx.Head(branch)
				if err != nil {
					return err
				}
				to = head
			}
			for e, err := range tx.events(branch, from, to, &a) {
				if err != nil {
					return err
				}
				page = append(page, e)
				if len(page) == scanPage || a.n >= scanBytes {
					break
				}
			}
			return nil
		})
		if err != nil || len(page) == 0 {
			return err
		}
		if err := fn(page); err != nil {
			return err
		}
		last := page[len(page)-1].Seq
		if last >= to {
			return nil
		}
		from = last + 1
	}
}

// scanPage and scanBytes bound a page of ScanRange: in events, and in bytes of payloads.
const (
	scanPage  = 2048
	scanBytes = 1 << 20
)

// Head returns the head seq and hash of a branch.
func (s *Store) Head(branch string) (seq uint64, h Hash, err error) {
	err = s.View(func(tx *Tx) error {
		seq, h, err = tx.Head(branch)
		return err
	})
	return seq, h, err
}

// Fork creates branch id from parent at seq in its own transaction.
func (s *Store) Fork(id, parent string, seq uint64) (b Branch, err error) {
	err = s.Update(func(tx *Tx) error {
		b, err = tx.Fork(id, parent, seq)
		return err
	})
	return b, err
}

// NewBranch creates an empty root branch in its own transaction.
func (s *Store) NewBranch(id string) (b Branch, err error) {
	err = s.Update(func(tx *Tx) error {
		b, err = tx.NewBranch(id)
		return err
	})
	return b, err
}

// Segment is a run of a branch's history stored in one branch's own events.
type Segment struct {
	Branch   string
	From, To uint64
}

// Lineage returns, oldest first, which branch stores each part of a branch's history.
func (s *Store) Lineage(branch string) (out []Segment, err error) {
	err = s.View(func(tx *Tx) error {
		head, _, err := tx.Head(branch)
		if err != nil {
			return err
		}
		segs, err := tx.segments(branch, head)
		for _, sg := range segs {
			out = append(out, Segment{Branch: sg.branch, From: sg.from, To: sg.to})
		}
		return err
	})
	return out, err
}

// Branches lists every branch.
func (s *Store) Branches() (out []Branch, err error) {
	err = s.View(func(tx *Tx) error {
		out, err = tx.Branches()
		return err
	})
	return out, err
}
