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

// ErrBackupPlace means a backup was asked for in a place where it would be given away: outside
// EXO_HOME's backups folder (sandboxed commands run as the user and read the whole file system
// but EXO_HOME, so every session's agent could read it there, and a workspace's snapshots and
// forks would copy it), in another folder of EXO_HOME, or through a symbolic link (one an agent
// planted would send the copy wherever it points).
var ErrBackupPlace = errors.New("not a place for a backup")

// Backup writes a consistent copy of the event store (exo.db) to path, an absolute path that
// must not exist; "" names EXO_HOME/backups/exo-TIME.db. It returns the path and the copy's size.
// The copy holds the sessions, their events and the sealed secrets, not the key that opens those
// (EXO_HOME/secret.key) nor the artifacts' contents (EXO_HOME/artifacts). The copy is written
// only into EXO_HOME's backups folder, which no sandbox can read: any other path, and a path
// through a symbolic link anywhere (checked as the folder is opened, so a link swapped in
// meanwhile is refused too), is ErrBackupPlace with nothing written. A ctx ended before the copy
// is named (the client gave up) leaves no backup.
func (h *Harness) Backup(ctx context.Context, path string) (string, int64, error) {
	backups := filepath.Join(h.realHome, BackupsDir)
	if path == "" {
		path = filepath.Join(backups, "exo-"+time.Now().UTC().Format("20060102-150405.000")+".db")
	}
	if !filepath.IsAbs(path) {
		return "", 0, fmt.Errorf("back up to %s: the path must be absolute", path)
	}
	path = filepath.Clean(path)
	if filepath.Dir(path) == backups {
		if err := os.MkdirAll(backups, 0o700); err != nil {
			return "", 0, fmt.Errorf("back up: %w", err)
		}
	}
	n, err := h.st.Backup(ctx, path, h.backupPlace)
	if errors.Is(err, store.ErrLinkInPath) {
		err = fmt.Errorf("%w: %w (a link in a folder an agent can write could send the copy anywhere: name the folder itself, %s)",
			ErrBackupPlace, err, filepath.Join(h.Home(), BackupsDir))
	}
	return path, n, err
}

// realHome is home with its links resolved (home itself as named when that fails): the path
// of EXO_HOME a link-free backup path is compared with (Open resolves it once).
func realHome(home string) string {
	if real, err := filepath.EvalSymlinks(home); err == nil {
		return real
	}
	return home
}

// backupPlace refuses a folder (which has no link on its path) other than EXO_HOME's backups
// folder, saying why: inside EXO_HOME the copy would be mixed with exo's own state, in a
// session's workspace its agent would read it and its snapshots and forks copy it, and anywhere
// else every session's sandboxed commands could read it.
func (h *Harness) backupPlace(dir string) error {
	home := h.realHome
	backups := filepath.Join(home, BackupsDir)
	if dir == backups {
		return nil
	}
	if within(dir, home) {
		return fmt.Errorf("%w: %s is inside exo's home %s: back up into %s", ErrBackupPlace, dir, h.Home(), backups)
	}
	all, _ := h.Sessions() // only to say why more precisely: the place is refused either way
	for _, s := range all {
		if s.Workspace == "" {
			continue
		}
		ws, err := filepath.EvalSymlinks(s.Workspace)
		if err == nil && within(dir, ws) {
			return fmt.Errorf("%w: %s is inside the workspace of session %s (%s), whose agent could read every session's events there: back up into %s",
				ErrBackupPlace, dir, s.Name, s.Workspace, backups)
		}
	}
	return fmt.Errorf("%w: %s is outside exo's home, where every session's sandboxed commands could read the copy (every session's events, sealed records included): "+
		"back up into %s (the default), which they cannot read, and copy it elsewhere yourself if you want it there", ErrBackupPlace, dir, backups)
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
