package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DamageFile is the file, next to exo.db, that remembers why the database was found damaged:
// while it exists every process opens the store refusing writes. A verification that finds
// everything sound removes it.
const DamageFile = "exo.db.damaged"

// Damaged returns why the store refuses writes, or nil when it is sound as far as checked.
func (s *Store) Damaged() error {
	s.damage.Lock()
	defer s.damage.Unlock()
	return s.damage.err
}

// markDamaged makes the store refuse writes from now on, in this process and (through
// DamageFile) in the next ones.
func (s *Store) markDamaged(err error) {
	s.damage.Lock()
	first := s.damage.err == nil
	if first && errors.Is(err, ErrCorrupt) {
		s.damage.err = fmt.Errorf("%s is damaged: %w", s.Path(), err)
	} else if first {
		s.damage.err = fmt.Errorf("%s is damaged: %v: %w (%s)", s.Path(), err, ErrCorrupt, wayOut)
	}
	s.damage.Unlock()
	if first {
		_ = os.WriteFile(filepath.Join(s.home, DamageFile), []byte(err.Error()+"\n"), 0o600)
	}
}

// noteDamage marks the store damaged when err says the file is corrupt, and returns err.
func (s *Store) noteDamage(err error) error {
	if err != nil && errors.Is(err, ErrCorrupt) {
		s.markDamaged(err)
	}
	return err
}

// loadDamage reads DamageFile left by an earlier process.
func (s *Store) loadDamage() {
	b, err := os.ReadFile(filepath.Join(s.home, DamageFile))
	if err != nil {
		return
	}
	why := strings.TrimSpace(string(b))
	s.damage.err = fmt.Errorf("%s was found damaged (%s): %w (%s; once it is replaced, `exo verify` clears this)", s.Path(), why, ErrCorrupt, wayOut)
}

// clearDamage forgets a damage verdict after a verification found everything sound.
func (s *Store) clearDamage() {
	s.damage.Lock()
	s.damage.err = nil
	s.damage.Unlock()
	_ = os.Remove(filepath.Join(s.home, DamageFile))
}

// checkUnused refuses to create a database in a home that shows it held one: a missing or
// empty exo.db next to stored artifacts or the harness's evidence was lost or truncated, and
// starting afresh there would silently forget every session.
func checkUnused(home string, evidence []string) error {
	var found []string
	for _, e := range evidence {
		if _, err := os.Lstat(filepath.Join(home, e)); err == nil {
			found = append(found, e)
		}
	}
	if blobs, _ := filepath.Glob(filepath.Join(home, "artifacts", "[0-9a-f][0-9a-f]")); len(blobs) > 0 {
		found = append(found, "artifacts")
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("open %s: the database is missing or empty but %s holds exo state (%s): it was lost or truncated: %w "+
		"(restore exo.db from a backup; to start afresh, move %s aside)", filepath.Join(home, DBName), home, strings.Join(found, ", "), ErrCorrupt, home)
}
