package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckPlace: exo.db as a link is followed inside EXO_HOME however the two are spelled
// (a relative home, an absolute or relative link), and refused out of it or to nothing.
func TestCheckPlace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	os.MkdirAll(filepath.Join(home, "data"), 0o700)
	os.WriteFile(filepath.Join(home, "data", "x.db"), nil, 0o600)
	os.WriteFile(filepath.Join(dir, "out.db"), nil, 0o600)
	wd, _ := os.Getwd()
	relHome, err := filepath.Rel(wd, home)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		link string
		ok   bool
	}{
		{filepath.Join(home, "data", "x.db"), true},
		{"data/x.db", true},
		{filepath.Join(dir, "out.db"), false},
		{"../out.db", false},
		{"data/missing.db", false},
	} {
		path := filepath.Join(home, DBName)
		os.Remove(path)
		if err := os.Symlink(c.link, path); err != nil {
			t.Fatal(err)
		}
		for _, h := range []string{home, relHome} {
			err := checkPlace(h, filepath.Join(h, DBName))
			if (err == nil) != c.ok || err != nil && !errors.Is(err, ErrForeign) {
				t.Errorf("link %s, home %s: %v (want ok %v)", c.link, h, err, c.ok)
			}
		}
	}
}
