package store

import (
	"encoding/json"
	"fmt"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// openTest opens a store in a fresh temp dir and, on cleanup, checks bbolt's consistency.
func openTest(tb testing.TB, opts Options) *Store {
	tb.Helper()
	s, err := Open(tb.TempDir(), opts)
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	tb.Cleanup(func() {
		err := s.db.View(func(tx *bolt.Tx) error {
			for err := range tx.Check() {
				return err
			}
			return nil
		})
		if err != nil {
			tb.Errorf("consistency check: %v", err)
		}
		if err := s.Close(); err != nil {
			tb.Errorf("close: %v", err)
		}
	})
	return s
}

// rec builds a test record whose data names n.
func rec(n int) Record {
	return Record{Type: "test.event", Actor: "user", Data: json.RawMessage(fmt.Sprintf(`{"n":%d,"text":"event number %d"}`, n, n))}
}

// mustAppend appends n records to branch in batches of batch.
func mustAppend(tb testing.TB, s *Store, branch string, n, batch int) {
	tb.Helper()
	for i := 0; i < n; i += batch {
		recs := make([]Record, 0, batch)
		for j := i; j < min(n, i+batch); j++ {
			recs = append(recs, rec(j))
		}
		if _, err := s.Append(branch, recs...); err != nil {
			tb.Fatalf("append: %v", err)
		}
	}
}
