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

// testVocab is the vocabulary the event tests encode with: the names the tests use, padded so
// that a stored place up to 40 means a name, and a dictionary of the shapes of their payloads
// (a tool's output, a model's request and answer).
var testVocab = func() Vocabulary {
	names := []string{"test.event", "crash.test", "tool.completed", "model.completed", "model.requested", "user", "harness", "tool:bash", "executor:default"}
	for len(names) < 40 {
		names = append(names, fmt.Sprintf("name.%d", len(names)))
	}
	dict := []byte(`{"call_id":"c1","tool":"bash","output":"ok  \texo/store\t0.512s\n--- PASS: ","duration_ms":35,"exit":0}{"text":"the ","model":"","provider":"anthropic","step":2}` +
		`{"text":"the slow path was made faster step by step. "}`)
	return Vocabulary{Names: names, Dict: dict, DictID: 0x74657374} // "test"
}()

// testCodec encodes and decodes with testVocab.
var testCodec = NewCodec(testVocab)

// encodeEvent encodes an event as a store opened with testVocab stores it.
func encodeEvent(e *Event) []byte { return testCodec.Encode(e) }

// decodeEvent decodes what encodeEvent wrote.
func decodeEvent(branch string, b []byte) (Event, error) { return testCodec.Decode(branch, b) }
