package secrets

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/crypto/chacha20poly1305"
)

// KeyFileName is the key file's name inside EXO_HOME.
const KeyFileName = "secret.key"

// ErrKeyPermissions means the key file can be read or written by others.
var ErrKeyPermissions = errors.New("secret key file permissions too open")

// LoadOrCreateKey reads the 32-byte key from dir/secret.key, creating dir
// (0700) and a new random key (0600) when there is none. A key file whose
// mode gives any access to group or others is refused.
func LoadOrCreateKey(dir string) ([]byte, error) {
	path := filepath.Join(dir, KeyFileName)
	key, err := readKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("secrets: create %s: %w", dir, err)
	}
	key, err = createKey(path)
	if errors.Is(err, fs.ErrExist) { // another process created it first
		return readKey(path)
	}
	return key, err
}

// readKey reads and checks an existing key file.
func readKey(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("secrets: %s is not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s has mode %04o, want 0600 (run: chmod 600 %s)", ErrKeyPermissions, path, perm, path)
	}
	key, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("secrets: read key: %w", err)
	}
	if len(key) != chacha20poly1305.KeySize {
		return nil, fmt.Errorf("secrets: %s holds %d bytes, want a %d-byte key", path, len(key), chacha20poly1305.KeySize)
	}
	return key, nil
}

// createKey writes a new random key; it fails with fs.ErrExist if the file
// appeared meanwhile.
func createKey(path string) ([]byte, error) {
	key := make([]byte, chacha20poly1305.KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("secrets: generate key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(key); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("secrets: write key: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("secrets: write key: %w", err)
	}
	return key, nil
}
