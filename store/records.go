package store

import (
	"fmt"
)

// records opens a record bucket.
func (t *Tx) records(b RecordBucket) (kvBucket, error) {
	kb, err := t.top(string(b))
	if err != nil {
		return nil, fmt.Errorf("records %s: %w", b, err)
	}
	return kb, nil
}

// PutRecord stores an opaque value under key in a record bucket.
func (t *Tx) PutRecord(b RecordBucket, key string, val []byte) error {
	kb, err := t.records(b)
	if err != nil {
		return err
	}
	if err := kb.put([]byte(key), val); err != nil {
		return fmt.Errorf("put %s/%s: %w", b, key, err)
	}
	return nil
}

// Record returns a copy of the value under key, or ErrNotFound.
func (t *Tx) Record(b RecordBucket, key string) ([]byte, error) {
	kb, err := t.records(b)
	if err != nil {
		return nil, err
	}
	v, err := kb.get([]byte(key))
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w", b, key, err)
	}
	if v == nil {
		return nil, fmt.Errorf("%s/%s: %w", b, key, ErrNotFound)
	}
	return append([]byte(nil), v...), nil
}

// DeleteRecord removes key from a record bucket; deleting a missing key is not an error.
func (t *Tx) DeleteRecord(b RecordBucket, key string) error {
	kb, err := t.records(b)
	if err != nil {
		return err
	}
	if err := kb.del([]byte(key)); err != nil {
		return fmt.Errorf("delete %s/%s: %w", b, key, err)
	}
	return nil
}

// Records calls fn for every key and value (copied) of a record bucket, in key order.
func (t *Tx) Records(b RecordBucket, fn func(key string, val []byte) error) error {
	kb, err := t.records(b)
	if err != nil {
		return err
	}
	return kb.scan(nil, func(k, v []byte) (bool, error) {
		if err := fn(string(k), append([]byte(nil), v...)); err != nil {
			return false, err
		}
		return true, nil
	})
}

// PutRecord stores a record in its own transaction.
func (s *Store) PutRecord(b RecordBucket, key string, val []byte) error {
	return s.Update(func(tx *Tx) error { return tx.PutRecord(b, key, val) })
}

// Record reads a record in its own transaction.
func (s *Store) Record(b RecordBucket, key string) (v []byte, err error) {
	err = s.View(func(tx *Tx) error {
		v, err = tx.Record(b, key)
		return err
	})
	return v, err
}

// DeleteRecord deletes a record in its own transaction.
func (s *Store) DeleteRecord(b RecordBucket, key string) error {
	return s.Update(func(tx *Tx) error { return tx.DeleteRecord(b, key) })
}
