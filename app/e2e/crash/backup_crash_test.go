package crash

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKillDuringBackup kills the daemon with the copy whole but not yet named, for a named
// FILE and for the default one in EXO_HOME/backups: no file is at the path, nothing is left
// beside it or anywhere in EXO_HOME, the store verifies, and the next backup to the same path
// is made and restores. Then the client is killed while a backup runs: whatever the daemon
// finishes is a whole backup or nothing, and the daemon answers after.
func TestKillDuringBackup(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, "backups") // the only place backups go: no sandbox reads it
	mustRun(t, home, "new", "--name", "b")
	os.MkdirAll(dir, 0o700)
	for range 20 {
		mustRun(t, home, "say", "b", strings.Repeat("a line of the log ", 40))
	}
	before := homeFiles(t, home)
	file := filepath.Join(dir, "b.db")
	killedAt(t, home, dir, "backup.before-link", "backup", file)
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("a killed backup left %v beside its path", ents)
	}
	killedAt(t, home, dir, "backup.before-link", "backup")
	if ents, _ := os.ReadDir(filepath.Join(home, "backups")); len(ents) != 0 {
		t.Fatalf("a killed default backup left %v in EXO_HOME/backups", ents)
	}
	checkRecovered(t, home, "", "backup.before-link")
	if extra := newFiles(before, homeFiles(t, home)); len(extra) > 0 {
		t.Fatalf("killed backups left in EXO_HOME: %v", extra)
	}
	if out, errs, code := run(t, home, "backup", file); code != 0 || !strings.Contains(out, file) {
		t.Fatalf("the backup after the kills: exit %d %s %s", code, out, errs)
	}
	checkBackupRestores(t, file)

	// The client killed mid-backup.
	file2 := filepath.Join(dir, "c.db")
	cmd := exec.Command(exoBin, "backup", file2)
	cmd.Env = append(os.Environ(), "EXO_HOME="+home)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	mustRun(t, home, "say", "b", "the daemon answers")
	if _, err := os.Lstat(file2); err == nil {
		checkBackupRestores(t, file2)
	}
	for _, e := range mustReadDir(t, dir) {
		if e != "b.db" && e != "c.db" {
			t.Fatalf("a killed client's backup left %s", e)
		}
	}
}

// checkBackupRestores puts a backup in a fresh EXO_HOME as exo.db and runs exo verify there.
func checkBackupRestores(t *testing.T, file string) {
	t.Helper()
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the backup %s: %v %v", file, fi.Mode(), err)
	}
	h2 := t.TempDir()
	b, _ := os.ReadFile(file)
	os.WriteFile(filepath.Join(h2, "exo.db"), b, 0o600)
	if out, errs, code := run(t, h2, "verify"); code != 0 {
		t.Fatalf("verify of the restored backup: exit %d %s %s", code, out, errs)
	}
	if out := mustRun(t, h2, "sessions"); !strings.Contains(out, "b") {
		t.Fatalf("the restored backup lists no session b:\n%s", out)
	}
}

// homeFiles lists the regular files under home, by relative path.
func homeFiles(t *testing.T, home string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(home, p)
			out[rel] = true
		}
		return nil
	})
	return out
}

// newFiles lists what after holds and before did not, but for the daemon's own files.
func newFiles(before, after map[string]bool) []string {
	var out []string
	for p := range after {
		if !before[p] && !strings.HasPrefix(p, "daemon") {
			out = append(out, p)
		}
	}
	return out
}

// mustReadDir lists a folder's entry names.
func mustReadDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}
