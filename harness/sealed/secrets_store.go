package sealed

import (
	"errors"
	"fmt"
	"sync"

	"exo/harness/secrets"
	"exo/store"
)

// secretBackend keeps sealed secrets in the store's secrets bucket.
type secretBackend struct{ st *store.Store }

// Put stores sealed bytes.
func (b secretBackend) Put(name string, sealed []byte) error {
	return b.st.PutRecord(store.Secrets, name, sealed)
}

// Get returns sealed bytes, or an error matching secrets.ErrNotFound.
func (b secretBackend) Get(name string) ([]byte, error) {
	v, err := b.st.Record(store.Secrets, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("secret %s: %w", name, secrets.ErrNotFound)
	}
	return v, err
}

// Delete removes a sealed secret.
func (b secretBackend) Delete(name string) error { return b.st.DeleteRecord(store.Secrets, name) }

// List returns the stored names.
func (b secretBackend) List() ([]string, error) {
	var out []string
	err := b.st.View(func(tx *store.Tx) error {
		return tx.Records(store.Secrets, func(k string, _ []byte) error {
			out = append(out, k)
			return nil
		})
	})
	return out, err
}

// Secrets is the sealed secrets service: the vault kept in the store's secrets bucket and the
// redactor built from its values.
type Secrets struct {
	st      *store.Store
	home    string
	private []string

	mu    sync.RWMutex
	vault *secrets.Vault
	red   *secrets.Redactor
}

// Open opens the vault of st (its key file lives in EXO_HOME, st's home) and builds the
// redactor. private lists exo's own folders, the home first (see SecretPathDenied).
func Open(st *store.Store, private []string) (*Secrets, error) {
	sc := &Secrets{st: st, home: st.Home(), private: private}
	v, err := secrets.NewVault(sc.home, secretBackend{st})
	if err != nil {
		return nil, fmt.Errorf("open sealed secrets: %w", err)
	}
	sc.vault = v
	if err := sc.rebuildRedactor(); err != nil {
		return nil, err
	}
	return sc, nil
}

// rebuildRedactor refreshes the redactor after secrets change.
func (sc *Secrets) rebuildRedactor() error {
	r, err := sc.vault.Redactor()
	if err != nil {
		return fmt.Errorf("build redactor: %w", err)
	}
	sc.mu.Lock()
	sc.red = r
	sc.mu.Unlock()
	return nil
}

// Redactor returns the current redactor (nil when no secret is sealed); sealing or removing a
// secret replaces it with a new one, so a caller may keep work done with it while it is the same.
func (sc *Secrets) Redactor() *secrets.Redactor { return sc.redactor() }

// redactor returns the current redactor (nil when there are no secrets).
func (sc *Secrets) redactor() *secrets.Redactor {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	if sc.red == nil || len(sc.red.Names()) == 0 {
		return nil
	}
	return sc.red
}

// SetSecret seals a secret value under name.
func (sc *Secrets) SetSecret(name string, value []byte) error {
	if err := sc.vault.Set(name, value); err != nil {
		return err
	}
	return sc.rebuildRedactor()
}

// RemoveSecret deletes a sealed secret.
func (sc *Secrets) RemoveSecret(name string) error {
	if err := sc.vault.Remove(name); err != nil {
		return err
	}
	return sc.rebuildRedactor()
}

// SecretInfos lists sealed secrets: names and dates only, never values.
func (sc *Secrets) SecretInfos() ([]secrets.Info, error) { return sc.vault.List() }

// RedactStream returns a redactor for text arriving in pieces (streamed model output), or nil
// when there are no secrets.
func (sc *Secrets) RedactStream() *secrets.Stream {
	if r := sc.redactor(); r != nil {
		return r.NewStream()
	}
	return nil
}
