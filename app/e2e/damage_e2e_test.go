package e2e

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// usedHome makes an EXO_HOME with one session of a few events and returns it and the session id.
func usedHome(t *testing.T) (string, string) {
	t.Helper()
	home := t.TempDir()
	id := strings.TrimSpace(mustRun(t, home, "new", "--name", "d"))
	for i := 0; i < 4; i++ {
		mustRun(t, home, "say", "d", "message")
	}
	mustRun(t, home, "daemon", "stop") // the damage happens while exo is not running
	return home, id
}

// TestCLIDamagedStoreRefused damages exo.db the ways that used to be reused (emptied: a new
// store; cut to an odd size: SIGBUS; a page zeroed: "ok"; the last event deleted: unnoticed)
// and checks that every command refuses it with the way out, that nothing is written into it,
// and that `exo doctor` explains it.
func TestCLIDamagedStoreRefused(t *testing.T) {
	t.Parallel()
	cases := map[string]func(t *testing.T, path, id string){
		"emptied": func(t *testing.T, path, _ string) { os.Truncate(path, 0) },
		"deleted": func(t *testing.T, path, _ string) { os.Remove(path) },
		"odd size": func(t *testing.T, path, _ string) {
			fi, _ := os.Stat(path)
			os.Truncate(path, fi.Size()-1234)
		},
		"zeroed root page": func(t *testing.T, path, _ string) {
			b, _ := os.ReadFile(path)
			root := binary.NativeEndian.Uint64(b[16+16:]) // meta 0's root bucket page
			if txid1, txid0 := binary.NativeEndian.Uint64(b[4096+16+48:]), binary.NativeEndian.Uint64(b[16+48:]); txid1 > txid0 {
				root = binary.NativeEndian.Uint64(b[4096+16+16:])
			}
			clear(b[root*4096 : (root+1)*4096])
			os.WriteFile(path, b, 0o600)
		},
		"last event deleted": func(t *testing.T, path, id string) {
			db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			db.Update(func(tx *bolt.Tx) error {
				return tx.Bucket([]byte("events")).Bucket([]byte(id)).Delete([]byte{0, 0, 0, 0, 0, 0, 0, 5})
			})
		},
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			home, id := usedHome(t)
			path := filepath.Join(home, "exo.db")
			damage(t, path, id)
			before, _ := os.ReadFile(path)
			_, errs, code := run(t, home, "say", "d", "one more")
			if code != 1 || !strings.Contains(errs, "exo doctor") && !strings.Contains(errs, "restore exo.db from a backup") {
				t.Fatalf("a write into a damaged store: exit %d, %q", code, errs)
			}
			if strings.Contains(errs, "fatal error") || strings.Contains(errs, "SIGBUS") || strings.Contains(errs, "panic") {
				t.Fatalf("exo crashed: %s", errs)
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Fatal("the damaged file was written")
			}
			if _, errs, code := run(t, home, "verify"); code != 1 {
				t.Fatalf("verify of a damaged store: exit %d %s", code, errs)
			}
			out, _, code := run(t, home, "doctor")
			if code != 1 || !strings.Contains(out, "exo will not write into a damaged database") {
				t.Fatalf("doctor: exit %d\n%s", code, out)
			}
		})
	}
}

// TestDamageUnderRunningDaemon damages exo.db while the daemon has it open: emptied, cut to an
// odd size, deleted, or replaced by another file. The next write is refused with the way out,
// nothing is written into the file, the daemon steps aside, and the commands after it explain
// the damage (a replaced file is simply used: it is a restored backup).
func TestDamageUnderRunningDaemon(t *testing.T) {
	t.Parallel()
	cases := map[string]func(path string){
		"emptied":  func(path string) { os.Truncate(path, 0) },
		"odd size": func(path string) { fi, _ := os.Stat(path); os.Truncate(path, fi.Size()-1234) },
		"deleted":  func(path string) { os.Remove(path) },
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			mustRun(t, home, "new", "--name", "live")
			mustRun(t, home, "say", "live", "before")
			path := filepath.Join(home, "exo.db")
			damage(path)
			before, _ := os.ReadFile(path)
			_, errs, code := run(t, home, "say", "live", "after")
			if code != 1 || !strings.Contains(errs, "exo doctor") && !strings.Contains(errs, "restore exo.db from a backup") {
				t.Fatalf("a write into a store damaged under the daemon: exit %d, %q", code, errs)
			}
			if strings.Contains(errs, "panic") || strings.Contains(errs, "SIGBUS") {
				t.Fatalf("crash: %s", errs)
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Fatal("the damaged file was written")
			}
			if _, errs, code := run(t, home, "sessions"); code != 1 || !strings.Contains(errs, "corrupted") {
				t.Fatalf("the next command: exit %d %s", code, errs)
			}
		})
	}
	t.Run("replaced by a backup", func(t *testing.T) {
		home := t.TempDir()
		mustRun(t, home, "new", "--name", "kept")
		mustRun(t, home, "daemon", "stop")
		backup, _ := os.ReadFile(filepath.Join(home, "exo.db"))
		mustRun(t, home, "say", "kept", "lost when the backup comes back")
		tmp := filepath.Join(home, "exo.db.restore")
		os.WriteFile(tmp, backup, 0o600)
		os.Rename(tmp, filepath.Join(home, "exo.db"))
		if _, _, code := run(t, home, "say", "kept", "refused: the daemon's file is gone"); code != 1 {
			t.Fatalf("a write after the file was replaced: exit %d", code)
		}
		os.Remove(filepath.Join(home, "exo.db.damaged")) // the verdict was about the old file
		if log := mustRun(t, home, "log", "kept"); strings.Contains(log, "lost when the backup") {
			t.Fatalf("the restored backup was not used:\n%s", log)
		}
	})
}
