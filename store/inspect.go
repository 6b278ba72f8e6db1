package store

import (
	"os"
	"path/filepath"
	"strings"
)

// Diagnosis is what Inspect finds about a home's database without opening it.
type Diagnosis struct {
	// Path is the database file.
	Path string `json:"path"`
	// Size is its size in bytes (-1 when it is missing).
	Size int64 `json:"size"`
	// Problem describes damage found in the file itself (meta pages, size, page structure).
	Problem string `json:"problem,omitempty"`
	// Verdict is the damage an earlier process recorded (DamageFile), if any.
	Verdict string `json:"verdict,omitempty"`
}

// OK reports whether nothing is wrong.
func (d Diagnosis) OK() bool { return d.Problem == "" && d.Verdict == "" }

// Inspect checks home's database file with plain reads and a read-only walk of every page, and
// reads any recorded damage verdict; evidence is as for Options. It takes no lock and writes
// nothing, so `exo doctor` can describe a store that Open refuses.
func Inspect(home string, evidence []string) Diagnosis {
	d := Diagnosis{Path: filepath.Join(home, DBName), Size: -1}
	if fi, err := os.Stat(d.Path); err == nil {
		d.Size = fi.Size()
	}
	if b, err := os.ReadFile(filepath.Join(home, DamageFile)); err == nil {
		d.Verdict = strings.TrimSpace(string(b))
	}
	var err error
	if d.Size <= 0 {
		err = checkUnused(home, evidence)
	} else {
		err = checkFile(d.Path, true)
	}
	if err != nil {
		d.Problem = err.Error()
	}
	return d
}
