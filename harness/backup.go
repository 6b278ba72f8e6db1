package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"exo/store"
)

// BackupsDir is the folder in EXO_HOME where `exo backup` puts a copy when no file is named.
const BackupsDir = "backups"

// ErrBackupPlace means a backup was asked for in a place where it would be given away: a
// session's workspace (its agent could read every session's events there, and its snapshots
// and forks would copy them), or a folder of EXO_HOME other than its backups.
var ErrBackupPlace = errors.New("not a place for a backup")

// Backup writes a consistent copy of the event store (exo.db) to path, an absolute path that
// must not exist; "" names EXO_HOME/backups/exo-TIME.db. It returns the path and the copy's size.
// The copy holds the sessions, their events and the sealed secrets, not the key that opens those
// (EXO_HOME/secret.key) nor the artifacts' contents (EXO_HOME/artifacts). A path inside a
// session's workspace or inside EXO_HOME (but for its backups folder) is ErrBackupPlace, judged
// on the folder as the copy is written into it, links resolved. A ctx ended before the copy is
// named (the client gave up) leaves no backup.
func (h *Harness) Backup(ctx context.Context, path string) (string, int64, error) {
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
	n, err := h.st.Backup(ctx, path, h.backupPlace)
	return path, n, err
}

// backupPlace refuses a folder (links resolved) inside a session's workspace, or inside
// EXO_HOME unless it is EXO_HOME's backups folder.
func (h *Harness) backupPlace(dir string) error {
	if home, err := filepath.EvalSymlinks(h.Home()); err == nil && within(dir, home) {
		if dir != filepath.Join(home, BackupsDir) {
			return fmt.Errorf("%w: %s is inside exo's home %s: back up into %s or outside it", ErrBackupPlace, dir, h.Home(), filepath.Join(h.Home(), BackupsDir))
		}
		return nil
	}
	all, err := h.Sessions()
	if err != nil {
		return fmt.Errorf("back up: list the sessions' workspaces: %w", err)
	}
	for _, s := range all {
		if s.Workspace == "" {
			continue
		}
		ws, err := filepath.EvalSymlinks(s.Workspace)
		if err == nil && within(dir, ws) {
			return fmt.Errorf("%w: %s is inside the workspace of session %s (%s), whose agent could read every session's events there: back up outside it",
				ErrBackupPlace, dir, s.Name, s.Workspace)
		}
	}
	return nil
}

// within reports whether path is dir or beneath it (both clean and absolute).
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// sweepBackups removes the half copies a killed backup left in EXO_HOME's backups folder (only
// on a file system that cannot write a file without a name).
func (h *Harness) sweepBackups(rep *RecoveryReport) {
	if _, err := store.SweepPartialBackups(filepath.Join(h.Home(), BackupsDir)); err != nil {
		rep.Problems = append(rep.Problems, err.Error())
	}
}
