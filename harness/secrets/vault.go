package secrets

import (
	"bytes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// ErrTampered means sealed bytes failed to open: wrong key, another
// secret's value, or changed bytes.
var ErrTampered = errors.New("sealed secret does not open")

// ErrBadName means a secret name is not of the form [A-Za-z0-9_.-]+.
var ErrBadName = errors.New("bad secret name")

// nameOK reports whether name has the allowed shape of a secret's name: 1-128 ASCII letters,
// digits, '_', '.' or '-'. (A regexp with {1,128} costs every exo process milliseconds at start-up
// to compile; this check costs nothing until used.)
func nameOK(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// magic starts every sealed record (format version 1).
var magic = []byte("exo1")

// headerLen is magic + created + updated (both Unix nanoseconds).
const headerLen = 4 + 8 + 8

// Vault seals and opens named secrets.
type Vault struct {
	aead    cipher.AEAD
	backend Backend
	// Now is the clock for Created/Updated (default time.Now).
	Now func() time.Time
}

// ValidName checks a secret's name.
func ValidName(name string) error {
	if !nameOK(name) {
		return fmt.Errorf("%w %q: use 1-128 letters, digits, '_', '.' or '-'", ErrBadName, name)
	}
	return nil
}

// NewVault opens the vault whose key lives in dir (EXO_HOME), creating the
// key on first use, with sealed values kept in backend.
func NewVault(dir string, backend Backend) (*Vault, error) {
	key, err := LoadOrCreateKey(dir)
	if err != nil {
		return nil, err
	}
	return NewVaultWithKey(key, backend)
}

// NewVaultWithKey returns a vault with an explicit 32-byte key.
func NewVaultWithKey(key []byte, backend Backend) (*Vault, error) {
	aead, err := chacha20poly1305.NewX(key)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	return &Vault{aead: aead, backend: backend, Now: time.Now}, nil
}

// Set seals value under name, keeping the creation date of a previous value.
func (v *Vault) Set(name string, value []byte) error {
	if err := ValidName(name); err != nil {
		return err
	}
	now := v.Now().UTC()
	created := now
	if old, err := v.info(name); err == nil && !old.Unreadable {
		created = old.Created
	} else if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	sealed, err := v.seal(name, value, created, now)
	if err != nil {
		return err
	}
	if err := v.backend.Put(name, sealed); err != nil {
		return fmt.Errorf("secrets: store %s: %w", name, err)
	}
	return nil
}

// Open returns the value of name. Only the harness calls it, to
// authenticate a provider or a policy-granted tool.
func (v *Vault) Open(name string) ([]byte, error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	sealed, err := v.backend.Get(name)
	if err != nil {
		return nil, fmt.Errorf("secrets: %s: %w", name, err)
	}
	return v.open(name, sealed)
}

// List returns the names and dates of all secrets, sorted by name.
func (v *Vault) List() ([]Info, error) {
	names, err := v.backend.List()
	if err != nil {
		return nil, fmt.Errorf("secrets: list: %w", err)
	}
	out := make([]Info, 0, len(names))
	for _, n := range names {
		info, err := v.info(n)
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Remove deletes a secret; it fails with ErrNotFound if there is none.
func (v *Vault) Remove(name string) error {
	if _, err := v.info(name); err != nil {
		return err
	}
	if err := v.backend.Delete(name); err != nil {
		return fmt.Errorf("secrets: remove %s: %w", name, err)
	}
	return nil
}

// Redactor opens every readable secret and builds a redactor from their
// values (an unreadable value cannot be known, so it cannot be redacted).
func (v *Vault) Redactor() (*Redactor, error) {
	infos, err := v.List()
	if err != nil {
		return nil, err
	}
	values := make(map[string][]byte, len(infos))
	for _, in := range infos {
		if in.Unreadable {
			continue
		}
		if values[in.Name], err = v.Open(in.Name); err != nil {
			return nil, err
		}
	}
	return NewRedactor(values), nil
}

// info reads a secret's dates and checks whether its value opens; the
// dates of an unreadable record are shown but not trusted.
func (v *Vault) info(name string) (Info, error) {
	if err := ValidName(name); err != nil {
		return Info{}, err
	}
	sealed, err := v.backend.Get(name)
	if err != nil {
		return Info{}, fmt.Errorf("secrets: %s: %w", name, err)
	}
	info := Info{Name: name}
	if _, err := v.open(name, sealed); err != nil {
		info.Unreadable = true
	}
	if len(sealed) >= headerLen {
		c, u := binary.BigEndian.Uint64(sealed[4:12]), binary.BigEndian.Uint64(sealed[12:20])
		info.Created, info.Updated = time.Unix(0, int64(c)).UTC(), time.Unix(0, int64(u)).UTC()
	}
	return info, nil
}

// seal builds header ‖ nonce ‖ ciphertext, binding the name and header as
// additional data.
func (v *Vault) seal(name string, value []byte, created, updated time.Time) ([]byte, error) {
	out := make([]byte, headerLen, headerLen+v.aead.NonceSize()+len(value)+v.aead.Overhead())
	copy(out, magic)
	binary.BigEndian.PutUint64(out[4:12], uint64(created.UnixNano()))
	binary.BigEndian.PutUint64(out[12:20], uint64(updated.UnixNano()))
	nonce := make([]byte, v.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("secrets: nonce: %w", err)
	}
	out = append(out, nonce...)
	return v.aead.Seal(out, nonce, value, additionalData(name, out[:headerLen])), nil
}

// open checks and decrypts a sealed record.
func (v *Vault) open(name string, sealed []byte) ([]byte, error) {
	ns := v.aead.NonceSize()
	if len(sealed) < headerLen+ns+v.aead.Overhead() || !bytes.Equal(sealed[:4], magic) {
		return nil, fmt.Errorf("secrets: %s: %w (not a sealed record)", name, ErrTampered)
	}
	nonce := sealed[headerLen : headerLen+ns]
	plain, err := v.aead.Open(nil, nonce, sealed[headerLen+ns:], additionalData(name, sealed[:headerLen]))
	if err != nil {
		return nil, fmt.Errorf("secrets: %s: %w (wrong key, moved or altered)", name, ErrTampered)
	}
	return plain, nil
}

// additionalData binds a record to its name and header.
func additionalData(name string, header []byte) []byte {
	ad := make([]byte, 0, 16+len(name)+len(header))
	ad = append(ad, "exo.secret.v1\x00"...)
	ad = append(ad, name...)
	ad = append(ad, 0)
	return append(ad, header...)
}
