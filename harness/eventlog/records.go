package eventlog

import (
	"encoding/json"
	"fmt"

	"exo/store"
)

// NewRecord encodes a typed payload into a store record.
func NewRecord(typ, actor string, payload any) (store.Record, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return store.Record{}, fmt.Errorf("encode %s: %w", typ, err)
	}
	return store.Record{Type: typ, Actor: actor, Data: raw}, nil
}

// MustRecord is NewRecord for payloads that always encode (plain structs).
func MustRecord(typ, actor string, payload any) store.Record {
	r, err := NewRecord(typ, actor, payload)
	if err != nil {
		panic(err)
	}
	return r
}
