package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestBackupRestoreE2E: exo backup copies exo.db while the daemon runs and another client
// appends; a second backup to the same file is refused and leaves it; the default lands in
// EXO_HOME/backups; a FILE outside it (where sandboxes read) or through a link is refused,
// saying why, with nothing written; a relative FILE is taken from the caller's folder. After the store is
// destroyed (emptied, which exo refuses), copying the backup over it as the output says brings
// the session back: exo verify passes, the log holds what was backed up, and writes go on.
func TestBackupRestoreE2E(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	id := strings.TrimSpace(mustRun(t, home, "new", "--name", "b"))
	for range 4 {
		mustRun(t, home, "say", "b", "before the backup")
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 5 {
			if _, errs, code := run(t, home, "say", "b", "during the backup"); code != 0 {
				t.Errorf("say during the backup: %s", errs)
			}
		}
	}()
	dir := filepath.Join(home, "backups")
	file := filepath.Join(dir, "exo-copy.db")
	out, errs, code := run(t, home, "backup", file)
	wg.Wait()
	if code != 0 || !strings.Contains(out, "backed up") || !strings.Contains(out, file) || !strings.Contains(errs, "exo daemon stop") {
		t.Fatalf("exo backup: exit %d\n%s\n%s", code, out, errs)
	}
	saved, err := os.ReadFile(file)
	if err != nil || len(saved) < 4096 {
		t.Fatalf("the backup file: %d bytes, %v", len(saved), err)
	}
	if _, errs, code := run(t, home, "backup", file); code == 0 || !strings.Contains(errs, "exists") {
		t.Fatalf("a second backup over the first: exit %d %s", code, errs)
	}
	if again, _ := os.ReadFile(file); string(again) != string(saved) {
		t.Fatal("the refused backup changed the first")
	}
	if out, errs, code := run(t, home, "backup", "--json"); code != 0 || !strings.Contains(out, filepath.Join(home, "backups", "exo-")) {
		t.Fatalf("the default backup: exit %d %s %s", code, out, errs)
	}
	outside := t.TempDir()
	for _, p := range []string{filepath.Join(outside, "out.db"), "rel.db"} {
		_, errs, code := exoEnv(t, home, outside, nil, "backup", p)
		if code == 0 || !strings.Contains(errs, "sandboxed commands could read") || !strings.Contains(errs, dir) {
			t.Fatalf("a backup outside EXO_HOME (%s): exit %d %s", p, code, errs)
		}
	}
	os.Symlink(dir, filepath.Join(outside, "to-backups"))
	if _, errs, code := exoEnv(t, home, outside, nil, "backup", "to-backups/link.db"); code == 0 || !strings.Contains(errs, "symbolic link") {
		t.Fatalf("a backup through a link: exit %d %s", code, errs)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Fatalf("refused backups were written outside EXO_HOME: %v", ents)
	}
	if _, err := os.Lstat(filepath.Join(dir, "link.db")); err == nil {
		t.Fatal("a backup through a link was written")
	}
	if _, errs, code := exoEnv(t, home, dir, nil, "backup", "rel.db"); code != 0 {
		t.Fatalf("a relative backup path: %s", errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "rel.db")); err != nil {
		t.Fatalf("the relative backup is not in the caller's folder: %v", err)
	}
	mustRun(t, home, "say", "b", "after the backup")
	mustRun(t, home, "daemon", "stop")
	db := filepath.Join(home, "exo.db")
	os.Truncate(db, 0)
	if _, _, code := run(t, home, "log", "b"); code == 0 {
		t.Fatal("an emptied store was used")
	}
	mustRun(t, home, "daemon", "stop")
	if err := os.WriteFile(db, saved, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := run(t, home, "verify"); code != 0 {
		t.Fatalf("verify of the restored store: exit %d %s %s", code, out, errs)
	}
	log := mustRun(t, home, "log", id)
	if strings.Count(log, "before the backup") != 4 || strings.Contains(log, "after the backup") {
		t.Fatalf("the restored log:\n%s", log)
	}
	mustRun(t, home, "say", "b", "after the restore")
	if log := mustRun(t, home, "log", id); !strings.Contains(log, "after the restore") {
		t.Fatalf("the restored store takes no writes:\n%s", log)
	}
}
