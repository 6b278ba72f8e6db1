package secrets

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fileBackend persists sealed values as files, to search the bytes on disk.
type fileBackend struct{ dir string }

func (b fileBackend) Put(name string, sealed []byte) error {
	return os.WriteFile(filepath.Join(b.dir, name), sealed, 0o600)
}

func (b fileBackend) Get(name string) ([]byte, error) {
	v, err := os.ReadFile(filepath.Join(b.dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNotFound
	}
	return v, err
}

func (b fileBackend) Delete(name string) error { return os.Remove(filepath.Join(b.dir, name)) }

func (b fileBackend) List() ([]string, error) {
	ents, err := os.ReadDir(b.dir)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out, err
}

func newTestVault(t *testing.T) (*Vault, string) {
	t.Helper()
	home := t.TempDir()
	v, err := NewVault(home, NewMemBackend())
	if err != nil {
		t.Fatal(err)
	}
	return v, home
}

func TestVaultRoundTrip(t *testing.T) {
	v, home := newTestVault(t)
	now := time.Date(2026, 11, 22, 2, 30, 0, 0, time.UTC)
	v.Now = func() time.Time { return now }
	if err := v.Set("OPENAI_API_KEY", []byte("sk-proj-abcdef123456")); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Hour)
	if err := v.Set("OPENAI_API_KEY", []byte("sk-proj-rotated-999999")); err != nil {
		t.Fatal(err)
	}
	got, err := v.Open("OPENAI_API_KEY")
	if err != nil || string(got) != "sk-proj-rotated-999999" {
		t.Fatalf("open = %q, %v", got, err)
	}
	infos, err := v.List()
	if err != nil || len(infos) != 1 {
		t.Fatalf("list = %v, %v", infos, err)
	}
	if !infos[0].Created.Equal(now.Add(-time.Hour)) || !infos[0].Updated.Equal(now) {
		t.Errorf("dates = %+v", infos[0])
	}
	fi, err := os.Stat(filepath.Join(home, KeyFileName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, %v", fi, err)
	}
	if err := v.Remove("OPENAI_API_KEY"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Open("OPENAI_API_KEY"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after remove: %v", err)
	}
	if err := v.Remove("OPENAI_API_KEY"); !errors.Is(err, ErrNotFound) {
		t.Errorf("remove twice: %v", err)
	}
}

func TestVaultKeyIsReusedAcrossOpens(t *testing.T) {
	home, be := t.TempDir(), NewMemBackend()
	v1, _ := NewVault(home, be)
	_ = v1.Set("A", []byte("value-one"))
	v2, err := NewVault(home, be)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := v2.Open("A"); err != nil || string(got) != "value-one" {
		t.Fatalf("open with reloaded key = %q, %v", got, err)
	}
}

func TestSealedFileDoesNotContainTheValue(t *testing.T) {
	home, data := t.TempDir(), t.TempDir()
	v, err := NewVault(home, fileBackend{dir: data})
	if err != nil {
		t.Fatal(err)
	}
	value := []byte("ghp_SuperSecretToken_0123456789")
	if err := v.Set("GITHUB_TOKEN", value); err != nil {
		t.Fatal(err)
	}
	red := NewRedactor(map[string][]byte{"GITHUB_TOKEN": value})
	for _, dir := range []string{home, data} {
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			b, _ := os.ReadFile(filepath.Join(dir, f.Name()))
			if bytes.Contains(b, value) || red.Contains(string(b)) {
				t.Errorf("%s contains the value or an encoding of it", f.Name())
			}
		}
	}
	if got, _ := v.Open("GITHUB_TOKEN"); !bytes.Equal(got, value) {
		t.Error("value does not round-trip through files")
	}
}

func TestSealedValuesCannotBeSwapped(t *testing.T) {
	v, _ := newTestVault(t)
	be := v.backend.(*MemBackend)
	_ = v.Set("PROD", []byte("prod-secret-value"))
	_ = v.Set("DEV", []byte("dev-secret-value"))
	prod, _ := be.Get("PROD")
	_ = be.Put("DEV", prod)
	if _, err := v.Open("DEV"); !errors.Is(err, ErrTampered) {
		t.Errorf("swapped value opened: %v", err)
	}
	prod[len(prod)-1] ^= 1
	_ = be.Put("PROD", prod)
	if _, err := v.Open("PROD"); !errors.Is(err, ErrTampered) {
		t.Errorf("flipped bit opened: %v", err)
	}
}

func TestLooseKeyFileIsRefused(t *testing.T) {
	home := t.TempDir()
	if _, err := LoadOrCreateKey(home); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, KeyFileName)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := NewVault(home, NewMemBackend())
	if !errors.Is(err, ErrKeyPermissions) || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("err = %v", err)
	}
	if err := os.WriteFile(path, []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(path, 0o600)
	if _, err := LoadOrCreateKey(home); err == nil || !strings.Contains(err.Error(), "32-byte key") {
		t.Fatalf("short key: %v", err)
	}
}

func TestNamesAreValidated(t *testing.T) {
	v, _ := newTestVault(t)
	for _, bad := range []string{"", "a b", "../x", "é", "a/b", "x\n", "x\x00", strings.Repeat("x", 129)} {
		if err := v.Set(bad, []byte("value-value")); !errors.Is(err, ErrBadName) {
			t.Errorf("Set(%q) = %v", bad, err)
		}
	}
	for _, good := range []string{"OPENAI_API_KEY", "gh.token-2", "x", strings.Repeat("x", 128)} {
		if err := v.Set(good, []byte("value-value")); err != nil {
			t.Errorf("Set(%q) = %v", good, err)
		}
	}
}

func TestVaultRedactor(t *testing.T) {
	v, _ := newTestVault(t)
	_ = v.Set("ANTHROPIC_API_KEY", []byte("sk-ant-api03-XYZXYZXYZ"))
	_ = v.Set("PIN", []byte("1234"))
	r, err := v.Redactor()
	if err != nil {
		t.Fatal(err)
	}
	wantStr(t, r.String("key=sk-ant-api03-XYZXYZXYZ pin=1234"), "key=‹secret:ANTHROPIC_API_KEY› pin=1234")
	if got := r.Names(); len(got) != 1 || got[0] != "ANTHROPIC_API_KEY" {
		t.Errorf("names = %v", got)
	}
}

func wantStr(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestLostKeyIsNoDeadEnd(t *testing.T) {
	be := NewMemBackend()
	old, _ := NewVaultWithKey(bytes.Repeat([]byte{1}, 32), be)
	_ = old.Set("A", []byte("value-aaaaaa"))
	_ = old.Set("B", []byte("value-bbbbbb"))
	v, _ := NewVaultWithKey(bytes.Repeat([]byte{2}, 32), be) // the key file was replaced
	infos, err := v.List()
	if err != nil || len(infos) != 2 || !infos[0].Unreadable || infos[0].Created.IsZero() {
		t.Fatalf("list = %+v, %v", infos, err)
	}
	if _, err := v.Open("A"); !errors.Is(err, ErrTampered) {
		t.Errorf("open = %v", err)
	}
	if err := v.Set("A", []byte("value-new-aaa")); err != nil {
		t.Fatalf("set over an unreadable value: %v", err)
	}
	if err := v.Remove("B"); err != nil {
		t.Fatalf("remove an unreadable value: %v", err)
	}
	r, err := v.Redactor()
	if err != nil || r.String("value-new-aaa") != "‹secret:A›" {
		t.Fatalf("redactor: %v", err)
	}
}
