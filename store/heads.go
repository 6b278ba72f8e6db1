package store

import (
	"fmt"
)

// headRecordLen is the size of a head record: seq (8 bytes, big-endian) and hash (32).
const headRecordLen = 8 + len(Hash{})

// putHead records a branch's head in the heads bucket.
func (t *Tx) putHead(branch string, seq uint64, h Hash) error {
	v := append(seqKey(seq), h[:]...)
	hb, err := t.top(pathHeads)
	if err != nil {
		return err
	}
	if err := hb.put([]byte(branch), v); err != nil {
		return fmt.Errorf("record head of %s: %w", branch, err)
	}
	return nil
}

// headRecord returns a branch's head record; ok is false when there is none.
func (t *Tx) headRecord(branch string) (seq uint64, h Hash, ok bool, err error) {
	hb, err := t.top(pathHeads)
	if err != nil {
		return 0, Hash{}, false, err
	}
	v, err := hb.get([]byte(branch))
	if err != nil {
		return 0, Hash{}, false, fmt.Errorf("head of %s: %w", branch, err)
	}
	if v == nil {
		return 0, Hash{}, false, nil
	}
	if len(v) != headRecordLen {
		return 0, Hash{}, false, fmt.Errorf("branch %s: its head record is %d bytes, not %d: %w (%s)", branch, len(v), headRecordLen, ErrCorrupt, wayOut)
	}
	copy(h[:], v[8:])
	return keySeq(v[:8]), h, true, nil
}

// recordedHead returns a branch's head as recorded: its head record, else (before its first
// append) the head its branch record holds; recorded says which. A branch of an older schema
// has a head record from its creation on: without one it is damaged.
func (t *Tx) recordedHead(br Branch) (seq uint64, h Hash, recorded bool, err error) {
	seq, h, ok, err := t.headRecord(br.ID)
	switch {
	case err != nil:
		return 0, Hash{}, false, err
	case ok:
		return seq, h, true, nil
	case br.inRecord:
		return br.ForkSeq, br.forkHash, false, nil
	}
	return 0, Hash{}, false, fmt.Errorf("branch %s has no head record: %w (%s)", br.ID, ErrCorrupt, wayOut)
}

// headMismatch is the damage of a branch whose recorded head (seq; from its branch record
// unless recorded) is not its last stored event (last).
func headMismatch(id string, seq, last uint64, recorded bool) error {
	if !recorded {
		return fmt.Errorf("branch %s: it has no head record, so no append, but its events reach %d past its fork point %d (its head record was lost): %w (%s)", id, last, seq, ErrCorrupt, wayOut)
	}
	return fmt.Errorf("branch %s: its head is event %d but the last stored event is %d (events were lost): %w (%s)", id, seq, last, ErrCorrupt, wayOut)
}

// storedHead derives a branch's head from what is stored: its last own event (decoded), else
// the parent's event at the fork point, else nothing.
func (t *Tx) storedHead(br Branch) (uint64, Hash, error) {
	own, err := t.ownEvents(br.ID)
	if err != nil {
		return 0, Hash{}, err
	}
	k, v, err := own.last()
	if err != nil {
		return 0, Hash{}, fmt.Errorf("last event of %s: %w", br.ID, err)
	}
	if k != nil {
		e, err := t.s.codec.Decode(br.ID, v)
		if err != nil {
			return 0, Hash{}, fmt.Errorf("last event of %s: %v: %w", br.ID, err, ErrCorrupt)
		}
		if e.Seq != keySeq(k) {
			return 0, Hash{}, fmt.Errorf("last event of %s is stored under %d but says %d: %w", br.ID, keySeq(k), e.Seq, ErrCorrupt)
		}
		return e.Seq, e.Hash, nil
	}
	if br.ForkSeq == 0 {
		return 0, Hash{}, nil
	}
	h, err := t.forkHash(br)
	if isRequestError(err) {
		return 0, Hash{}, err // not read: nothing is known of the fork point
	}
	if err != nil {
		return 0, Hash{}, fmt.Errorf("%v: %w", err, ErrCorrupt)
	}
	return br.ForkSeq, h, nil
}

// checkHeads compares every branch's recorded head with what is stored, and checks that heads,
// branch records and event buckets name the same branches. It costs one lookup per branch.
func (t *Tx) checkHeads() error {
	all, err := t.Branches()
	if err != nil {
		return err
	}
	known := make(map[string]bool, len(all))
	for _, br := range all {
		known[br.ID] = true
		if err := t.checkHead(br); err != nil {
			return err
		}
	}
	return t.checkOrphans(known)
}

// checkHead compares one branch's head record with its stored head.
func (t *Tx) checkHead(br Branch) error {
	seq, h, recorded, err := t.recordedHead(br)
	if err != nil {
		return err
	}
	if seq < br.ForkSeq {
		return fmt.Errorf("branch %s: its head is event %d, before its fork point %d: %w (%s)", br.ID, seq, br.ForkSeq, ErrCorrupt, wayOut)
	}
	got, gotHash, err := t.storedHead(br)
	if isRequestError(err) {
		return fmt.Errorf("branch %s: %w", br.ID, err) // not read, so not damage
	}
	if err != nil {
		return fmt.Errorf("branch %s: %v: %w (%s)", br.ID, err, ErrCorrupt, wayOut)
	}
	if got != seq {
		return headMismatch(br.ID, seq, got, recorded)
	}
	if gotHash != h {
		return fmt.Errorf("branch %s: event %d's hash %s is not the recorded head %s (it was changed): %w (%s)", br.ID, seq, gotHash.Short(), h.Short(), ErrCorrupt, wayOut)
	}
	return nil
}

// checkOrphans reports head records or event buckets without a branch record.
func (t *Tx) checkOrphans(known map[string]bool) error {
	var bad []string
	hb, err := t.top(pathHeads)
	if err != nil {
		return err
	}
	err = hb.scan(nil, func(k, _ []byte) (bool, error) {
		if !known[string(k)] {
			bad = append(bad, "head of "+string(k))
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	evs, _, err := t.tx.buckets(pathEvents)
	if err != nil {
		return err
	}
	for _, k := range evs {
		if !known[k] {
			bad = append(bad, "events of "+k)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s without a branch record (the branch record was lost): %w (%s)", bad[0], ErrCorrupt, wayOut)
	}
	return nil
}

// migrate brings an older database to the current layout: a version 1 file gets every
// branch's head recorded; a version 2 or 3 file only its new version.
func (s *Store) migrate(t *Tx) error {
	v, err := schemaOf(t.tx)
	if err != nil || v >= SchemaVersion {
		return err
	}
	if v < 2 {
		if err := s.recordHeads(t); err != nil {
			return err
		}
	}
	meta, err := t.top(pathMeta)
	if err != nil {
		return err
	}
	return meta.put(metaSchemaKey, seqKey(SchemaVersion))
}

// recordHeads writes every branch's head record (the migration to schema 2).
func (s *Store) recordHeads(t *Tx) error {
	all, err := t.Branches()
	if err != nil {
		return err
	}
	for _, br := range all {
		seq, h, err := t.storedHead(br)
		if err != nil {
			return fmt.Errorf("migrate to schema 2: %w", err)
		}
		if err := t.putHead(br.ID, seq, h); err != nil {
			return err
		}
	}
	return nil
}
