package eventlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreURLPrecedence: --store, then EXO_STORE, then the user's config.toml, then
// EXO_HOME/store.url, then the local file; a malformed config file is an error naming it.
func TestStoreURLPrecedence(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	t.Setenv("EXO_STORE", "")
	check := func(option, want string) {
		t.Helper()
		got, err := StoreURL(home, option, cfg)
		if err != nil || got != want {
			t.Fatalf("StoreURL(%q) = %q, %v; want %q", option, got, err, want)
		}
	}
	check("", "")
	os.WriteFile(filepath.Join(home, StoreURLFile), []byte("etcd://old:2379/ns\n"), 0o600)
	check("", "etcd://old:2379/ns")
	os.WriteFile(cfg, []byte("store = \"etcd://conf:2379/ns?node=n\"\n"), 0o600)
	check("", "etcd://conf:2379/ns?node=n")
	t.Setenv("EXO_STORE", "etcd://env:2379/ns")
	check("", "etcd://env:2379/ns")
	check("etcd://flag:2379/ns", "etcd://flag:2379/ns")
	t.Setenv("EXO_STORE", "")
	if got, err := StoreURL(home, "", ""); err != nil || got != "etcd://old:2379/ns" {
		t.Fatalf("without a config file: %q %v", got, err)
	}
	os.WriteFile(cfg, []byte("theme = \"dark\"\nstore = \"etcd://u:pw@conf:2379/ns\"\n"), 0o600)
	if _, err := StoreURL(home, "", cfg); err == nil || !strings.Contains(err.Error(), cfg+":2:") {
		t.Fatalf("malformed config: %v", err)
	}
}
