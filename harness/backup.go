package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Backup writes a consistent copy of the event store (exo.db) to path, an absolute path that
// must not exist; "" names EXO_HOME/backups/exo-TIME.db. It returns the path and the copy's size.
// The copy holds the sessions, their events and the sealed secrets, not the key that opens those
// (EXO_HOME/secret.key) nor the artifacts' contents (EXO_HOME/artifacts).
func (h *Harness) Backup(path string) (string, int64, error) {
	if path == "" {
		dir := filepath.Join(h.Home(), "backups")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", 0, fmt.Errorf("back up: %w", err)
		}
		path = filepath.Join(dir, "exo-"+time.Now().UTC().Format("20060102-150405.000")+".db")
	}
	if !filepath.IsAbs(path) {
		return "", 0, fmt.Errorf("back up to %s: the path must be absolute", path)
	}
	n, err := h.st.Backup(filepath.Clean(path))
	return filepath.Clean(path), n, err
}
