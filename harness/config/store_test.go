package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreFromUserFileOnly: the user's file names the store (shown with its source); a
// project's file that names one is ignored with a warning, trusted or not and whatever its
// value (a bad one does not break loading), and exo trust is not offered it.
func TestStoreFromUserFileOnly(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user", "config.toml")
	proj := filepath.Join(dir, "proj")
	pf := filepath.Join(proj, ".exo", "config.toml")
	url := "etcd://10.0.0.1:2379,10.0.0.2:2379/team?node=laptop&cacert=/etc/exo/ca.pem&cert=/etc/exo/c.pem&key=/etc/exo/k.pem&user=exo&password-file=/etc/exo/pw"
	write(t, user, "store = \""+url+"\"\n")
	trustAll := func(string, []byte) bool { return true }
	for _, proj1 := range []string{`store = "etcd://attacker.example:2379/steal"`, `store = "bbolt"`, `store = 42`, `store = "nonsense://"`} {
		write(t, pf, proj1+"\ntheme = \"light\"\n")
		for _, trusted := range []func(string, []byte) bool{nil, trustAll} {
			c, err := Load(Options{UserFile: user, Project: proj, Trusted: trusted})
			if err != nil {
				t.Fatalf("%s: %v", proj1, err)
			}
			if c.Get(KeyStore) != url || c.Source(KeyStore) != user || c.Get(KeyTheme) != "light" {
				t.Fatalf("%s (trusted %v): store %q from %q, theme %q", proj1, trusted != nil, c.Get(KeyStore), c.Source(KeyStore), c.Get(KeyTheme))
			}
			if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], pf+":1: store ignored") {
				t.Fatalf("%s: warnings %v", proj1, c.Warnings)
			}
		}
		if l, _ := Loosens(pf, []byte(proj1)); len(l) != 0 {
			t.Fatalf("exo trust offers %v", l)
		}
	}
	// Without a user setting, a project's store still changes nothing.
	write(t, pf, "store = \"etcd://attacker.example:2379/steal\"\n")
	c, err := Load(Options{UserFile: filepath.Join(dir, "none.toml"), Project: proj, Trusted: trustAll})
	if err != nil || c.Get(KeyStore) != "bbolt" || c.Source(KeyStore) != SourceDefault {
		t.Fatalf("store %q from %q: %v", c.Get(KeyStore), c.Source(KeyStore), err)
	}
}

// TestStoreValueChecked: a user's store that is not bbolt or etcd://, names no endpoint, or
// carries credentials is an error naming file:line that never repeats the value.
func TestStoreValueChecked(t *testing.T) {
	user := filepath.Join(t.TempDir(), "config.toml")
	for _, v := range []string{
		"etcd://exo:hunter2@10.0.0.1:2379/team",
		"etcd://10.0.0.1:2379/team?password=hunter2",
		"etcd://10.0.0.1:2379/team?pass=hunter2",
		"https://hunter2.example/team",
		"etcd:///hunter2",
		"etcd://h\x7funter2",
	} {
		write(t, user, "theme = \"dark\"\nstore = \""+strings.ReplaceAll(v, "\x7f", `\u007f`)+"\"\n")
		_, err := Load(Options{UserFile: user})
		if err == nil || !strings.Contains(err.Error(), user+":2: store") {
			t.Fatalf("%q: %v", v, err)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Fatalf("the error repeats the value: %v", err)
		}
	}
	write(t, user, "store = \"bbolt\"\n")
	if c, err := Load(Options{UserFile: user}); err != nil || c.Get(KeyStore) != "bbolt" || c.Source(KeyStore) != user {
		t.Fatalf("bbolt: %v", err)
	}
}

// TestStoreEnvShown: EXO_STORE shows in place of the files' store with its source; an
// invalid one is not shown (it may carry a password) and is a warning.
func TestStoreEnvShown(t *testing.T) {
	user := filepath.Join(t.TempDir(), "config.toml")
	write(t, user, "store = \"etcd://conf:2379/ns\"\n")
	c, err := Load(Options{UserFile: user})
	if err != nil {
		t.Fatal(err)
	}
	WithStoreEnv(c, "")
	if c.Get(KeyStore) != "etcd://conf:2379/ns" || c.Source(KeyStore) != user {
		t.Fatalf("no EXO_STORE: %q from %q", c.Get(KeyStore), c.Source(KeyStore))
	}
	WithStoreEnv(c, "etcd://env:2379/ns?node=n")
	if c.Get(KeyStore) != "etcd://env:2379/ns?node=n" || c.Source(KeyStore) != SourceStoreEnv || len(c.Warnings) != 0 {
		t.Fatalf("EXO_STORE: %q from %q %v", c.Get(KeyStore), c.Source(KeyStore), c.Warnings)
	}
	WithStoreEnv(c, "etcd://me:hunter2@env:2379/ns")
	if c.Get(KeyStore) != "(invalid)" || len(c.Warnings) != 1 || strings.Contains(c.Warnings[0], "hunter2") {
		t.Fatalf("invalid EXO_STORE: %q %v", c.Get(KeyStore), c.Warnings)
	}
}
