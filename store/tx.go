package store

import (
	"time"
)

// Tx is one transaction over the store. A Tx from Update may append, fork and write
// records; a Tx from View only reads. Values returned by a Tx are copies, safe after it ends.
type Tx struct {
	s  *Store
	tx kvTx
	// branches are the branches a read-write transaction read: cached once it commits.
	branches []Branch
}

// Update runs fn in one read-write transaction: everything fn does commits together or not at all.
func (s *Store) Update(fn func(*Tx) error) error {
	var last *Tx
	err := s.update(func(ktx kvTx) error {
		last = &Tx{s: s, tx: ktx}
		return fn(last)
	})
	if err == nil && last != nil {
		for _, b := range last.branches { // committed: what it read of them stands (they never change)
			s.branches.Store(b.ID, b)
		}
	}
	return err
}

// View runs fn in one consistent read-only transaction.
func (s *Store) View(fn func(*Tx) error) error {
	return s.view(func(ktx kvTx) error { return fn(&Tx{s: s, tx: ktx}) })
}

// now is the clock the store stamps events with.
func now() time.Time { return time.Now().UTC() }
