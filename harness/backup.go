package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"exo/store"
)

// BackupsDir is the folder in EXO_HOME where `exo backup` puts a copy when no file is named.
const BackupsDir = "backups"

// Backup writes a consistent copy of the event store (exo.db) to path, an absolute path that
// must not exist; "" names EXO_HOME/backups/exo-TIME.db. It returns the path and the copy's size.
// The copy holds the sessions, their events and the sealed secrets, not the key that opens those
// (EXO_HOME/secret.key) nor the artifacts' contents (EXO_HOME/artifacts).
func (h *Harness) Backup(path string) (string, int64, error) {
	if path == "" {
		dir := filepath.Join(h.Home(), BackupsDir)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", 0, fmt.Errorf("back up: %w", err)
		}
		path = filepath.Join(dir, "exo-"+time.Now().UTC().Format("20060102-150405.000")+".db")
	}
	if !filepath.IsAbs(path) {
		return "", 0, fmt.Errorf("back up to %s: the path must be absolute", path)
	}
	path = filepath.Clean(path)
	n, err := h.st.Backup(path, nil)
	return path, n, err
}

// sweepBackups removes the half copies a killed backup left in EXO_HOME's backups folder (only
// on a file system that cannot write a file without a name).
func (h *Harness) sweepBackups(rep *RecoveryReport) {
	if _, err := store.SweepPartialBackups(filepath.Join(h.Home(), BackupsDir)); err != nil {
		rep.Problems = append(rep.Problems, err.Error())
	}
}
