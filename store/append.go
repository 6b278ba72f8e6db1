package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"exo/store/failpoint"
)

// Append adds records to the end of a branch in one transaction and returns the committed events.
// On an engine that bounds a commit (etcd's request and transaction limits) a batch too large
// for one is committed in several, in order, each a consistent prefix; on error the events
// committed so far are returned with it.
func (s *Store) Append(branch string, recs ...Record) (out []Event, err error) {
	for first := true; first || len(recs) > 0; first = false {
		n := s.batchLen(recs)
		var evs []Event
		err = s.UpdateGrouped(AppendCost(recs[:n]...), func(tx *Tx) error {
			var aerr error
			evs, aerr = tx.Append(branch, recs[:n]...)
			return aerr
		})
		if err != nil {
			return out, err
		}
		out = append(out, evs...)
		recs = recs[n:]
	}
	return out, nil
}

// Batches splits recs into consecutive runs that each fit one commit of the store's engine
// (one run on an engine without limits); a record too big for any commit is a run of its own,
// whose commit fails with ErrTooLarge.
func (s *Store) Batches(recs []Record) [][]Record {
	var out [][]Record
	for len(recs) > 0 {
		n := s.batchLen(recs)
		out = append(out, recs[:n])
		recs = recs[n:]
	}
	return out
}

// batchLen returns how many of recs fit one commit of the store's engine.
func (s *Store) batchLen(recs []Record) int {
	l, ok := s.kv.(interface{ limits() (int, int) })
	if !ok {
		return len(recs)
	}
	maxOps, maxBytes := l.limits()
	maxOps -= etcdMargin
	budget := maxBytes / 2 // events are stored with their hash, type and actor: room to spare
	n, size := 0, 0
	if len(recs) == 0 {
		return 0
	}
	for n < len(recs) && n < maxOps {
		size += len(recs[n].Data) + len(recs[n].Type) + len(recs[n].Actor) + 128
		if n > 0 && size > budget {
			break
		}
		n++
	}
	return max(n, 1)
}

// Append adds records to the end of a branch, assigning seq, time and the chained hash.
// Data must be valid JSON (empty means {}); it is stored compacted.
func (t *Tx) Append(branch string, recs ...Record) ([]Event, error) {
	br, err := t.Branch(branch)
	if err != nil {
		return nil, fmt.Errorf("append to %s: %w", branch, err)
	}
	head, prev, recorded, err := t.head(br)
	if err != nil {
		return nil, fmt.Errorf("append to %s: %w", branch, err)
	}
	own, err := t.tx.createBucket(pathEvents, branch)
	if err != nil {
		return nil, fmt.Errorf("append to %s: %w", branch, err)
	}
	if err := t.tx.fence(branch); err != nil {
		return nil, fmt.Errorf("append to %s: %w", branch, err)
	}
	out := make([]Event, 0, len(recs))
	stamp := now()
	keys := make([]byte, 8*len(recs))
	for i, r := range recs {
		e, err := newEvent(branch, head+uint64(i)+1, stamp, r)
		if err != nil {
			return nil, fmt.Errorf("append to %s: %w", branch, err)
		}
		e.Hash = ComputeHash(prev, &e)
		key := keys[8*i : 8*i+8]
		binary.BigEndian.PutUint64(key, e.Seq)
		if err := own.appendKey(key, t.s.codec.Encode(&e)); err != nil {
			return nil, fmt.Errorf("append to %s at %d: %w", branch, e.Seq, err)
		}
		prev = e.Hash
		out = append(out, e)
	}
	if len(out) == 0 {
		return out, nil
	}
	if !recorded {
		failpoint.Hit("store.first-append.before-head") // tests kill exo here (nothing is committed)
	}
	if err := t.putHead(branch, out[len(out)-1].Seq, prev); err != nil {
		return nil, err
	}
	if !recorded {
		failpoint.Hit("store.first-append.before-commit")
	}
	return out, nil
}

// newEvent validates a record and turns it into an unhashed event.
func newEvent(branch string, seq uint64, stamp time.Time, r Record) (Event, error) {
	if r.Type == "" || r.Actor == "" {
		return Event{}, fmt.Errorf("event %d: type and actor are required", seq)
	}
	data := r.Data
	if len(bytes.TrimSpace(data)) == 0 {
		data = json.RawMessage("{}")
	} else {
		var buf bytes.Buffer
		if err := json.Compact(&buf, data); err != nil {
			return Event{}, fmt.Errorf("event %d (%s): data is not valid JSON: %w", seq, r.Type, err)
		}
		data = buf.Bytes()
	}
	return Event{Branch: branch, Seq: seq, Type: r.Type, Time: stamp, Actor: r.Actor, Data: data}, nil
}
