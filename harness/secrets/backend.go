package secrets

import (
	"errors"
	"sort"
	"sync"
)

// ErrNotFound is returned (possibly wrapped) when no secret has the name.
var ErrNotFound = errors.New("no such secret")

// Backend persists sealed secrets by name. Get must return an error
// matching ErrNotFound for a missing name. Implementations must be safe for
// concurrent use.
type Backend interface {
	// Put stores sealed bytes under name, replacing any previous value.
	Put(name string, sealed []byte) error
	// Get returns the sealed bytes stored under name.
	Get(name string) ([]byte, error)
	// Delete removes name; deleting a missing name is not an error.
	Delete(name string) error
	// List returns the stored names.
	List() ([]string, error)
}

// MemBackend is an in-memory Backend for tests.
type MemBackend struct {
	mu sync.Mutex
	m  map[string][]byte
}

// NewMemBackend returns an empty in-memory backend.
func NewMemBackend() *MemBackend {
	return &MemBackend{m: map[string][]byte{}}
}

// Put stores a copy of sealed.
func (b *MemBackend) Put(name string, sealed []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.m[name] = append([]byte(nil), sealed...)
	return nil
}

// Get returns a copy of the sealed bytes.
func (b *MemBackend) Get(name string) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.m[name]
	if !ok {
		return nil, ErrNotFound
	}
	return append([]byte(nil), v...), nil
}

// Delete removes name.
func (b *MemBackend) Delete(name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, name)
	return nil
}

// List returns the names, sorted.
func (b *MemBackend) List() ([]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]string, 0, len(b.m))
	for k := range b.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}
