package main

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
	return home, id
}

// TestCLIDamagedStoreRefused damages exo.db the ways that used to be reused (emptied: a new
// store; cut to an odd size: SIGBUS; a page zeroed: "ok"; the last event deleted: unnoticed)
// and checks that every command refuses it with the way out, that nothing is written into it,
// and that `exo doctor` explains it.
func TestCLIDamagedStoreRefused(t *testing.T) {
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
