package store

import "errors"

// noEvents is the events of a branch that has none of its own yet: a fork's bucket is created
// by its first append, so that a fork writes only its branch and head records.
type noEvents struct{}

var errNoEventsBucket = errors.New("write to the events of a branch before its first append")

func (noEvents) get([]byte) ([]byte, error)                         { return nil, nil }
func (noEvents) last() ([]byte, []byte, error)                      { return nil, nil, nil }
func (noEvents) atOrBefore([]byte) ([]byte, []byte, error)          { return nil, nil, nil }
func (noEvents) scan([]byte, func(k, v []byte) (bool, error)) error { return nil }
func (noEvents) keys([]byte, func(k []byte) (bool, error)) error    { return nil }
func (noEvents) put([]byte, []byte) error                           { return errNoEventsBucket }
func (noEvents) create([]byte, []byte) error                        { return errNoEventsBucket }
func (noEvents) appendKey([]byte, []byte) error                     { return errNoEventsBucket }
func (noEvents) del([]byte) error                                   { return nil }
