package harness

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

// secretState is the harness's vault and the redactor built from its values.
type secretState struct {
	mu    sync.RWMutex
	vault *secrets.Vault
	red   *secrets.Redactor
}

// openSecrets opens the vault (its key file lives in EXO_HOME) and builds the redactor.
func (h *Harness) openSecrets() error {
	v, err := secrets.NewVault(h.Home(), secretBackend{h.st})
	if err != nil {
		return fmt.Errorf("open sealed secrets: %w", err)
	}
	h.sec.vault = v
	return h.rebuildRedactor()
}

// rebuildRedactor refreshes the redactor after secrets change.
func (h *Harness) rebuildRedactor() error {
	r, err := h.sec.vault.Redactor()
	if err != nil {
		return fmt.Errorf("build redactor: %w", err)
	}
	h.sec.mu.Lock()
	h.sec.red = r
	h.sec.mu.Unlock()
	return nil
}

// Redactor returns the current redactor (nil when no secret is sealed); sealing or removing a
// secret replaces it with a new one, so a caller may keep work done with it while it is the same.
func (h *Harness) Redactor() *secrets.Redactor { return h.redactor() }

// redactor returns the current redactor (nil when there are no secrets).
func (h *Harness) redactor() *secrets.Redactor {
	h.sec.mu.RLock()
	defer h.sec.mu.RUnlock()
	if h.sec.red == nil || len(h.sec.red.Names()) == 0 {
		return nil
	}
	return h.sec.red
}

// SetSecret seals a secret value under name.
func (h *Harness) SetSecret(name string, value []byte) error {
	if err := h.sec.vault.Set(name, value); err != nil {
		return err
	}
	return h.rebuildRedactor()
}

// RemoveSecret deletes a sealed secret.
func (h *Harness) RemoveSecret(name string) error {
	if err := h.sec.vault.Remove(name); err != nil {
		return err
	}
	return h.rebuildRedactor()
}

// SecretInfos lists sealed secrets: names and dates only, never values.
func (h *Harness) SecretInfos() ([]secrets.Info, error) { return h.sec.vault.List() }

// RedactStream returns a redactor for text arriving in pieces (streamed model output), or nil
// when there are no secrets.
func (h *Harness) RedactStream() *secrets.Stream {
	if r := h.redactor(); r != nil {
		return r.NewStream()
	}
	return nil
}
