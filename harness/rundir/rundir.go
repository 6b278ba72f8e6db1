// Package rundir says where exo keeps its state (EXO_HOME) and where a daemon's socket and start
// lock live (the per-user runtime folder). It imports only the standard library: the thin exo
// client uses it at start-up, where every linked package's initialisation counts.
package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// maxSocketPath is the longest path a unix socket address holds on Linux (sun_path less its NUL).
const maxSocketPath = 107

// RuntimeDir returns the per-user folder that holds daemon sockets and start locks:
// $XDG_RUNTIME_DIR/exo, else $TMPDIR/exo-UID (TMPDIR defaulting to /tmp). It is created 0700
// and checked with lstat before every use: a directory, not a symlink, owned by this user,
// with no access for group or others. Anything else is refused, never repaired.
func RuntimeDir() (string, error) {
	dir := runtimeDirPath()
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("create exo's runtime folder %s: %w", dir, err)
	}
	if err := checkPrivateDir(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// runtimeDirPath chooses the runtime folder's path without touching the disk.
func runtimeDirPath() string {
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "exo")
	}
	tmp := os.Getenv("TMPDIR")
	if tmp == "" || !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, "exo-"+strconv.Itoa(os.Getuid()))
}

// checkPrivateDir verifies with lstat that dir is a real directory of this user, mode 0700.
func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check exo's runtime folder: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("exo's runtime folder %s is not a directory (a symlink or a file): remove it and try again", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() {
		return fmt.Errorf("exo's runtime folder %s belongs to another user: remove it, or set XDG_RUNTIME_DIR", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("exo's runtime folder %s is open to other users (mode %04o, want 0700): remove it or chmod 700 it", dir, fi.Mode().Perm())
	}
	return nil
}

// homeKey names an EXO_HOME in the runtime folder: one daemon per EXO_HOME.
func homeKey(home string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(home)))
	return hex.EncodeToString(sum[:8])
}

// SocketPath returns the daemon socket of an EXO_HOME, checking that it fits a socket address.
func SocketPath(runtimeDir, home string) (string, error) {
	p := filepath.Join(runtimeDir, homeKey(home)+".sock")
	if len(p) > maxSocketPath {
		return "", fmt.Errorf("the daemon's socket path %s is %d bytes, more than a unix socket takes (%d): set XDG_RUNTIME_DIR or TMPDIR to a shorter folder", p, len(p), maxSocketPath)
	}
	return p, nil
}

// StartLockPath is the file racing clients lock while one of them starts the daemon.
func StartLockPath(runtimeDir, home string) string {
	return filepath.Join(runtimeDir, homeKey(home)+".start.lock")
}

// HomeDir returns EXO_HOME: $EXO_HOME made absolute, else ~/.exo.
func HomeDir() (string, error) {
	if h := os.Getenv("EXO_HOME"); h != "" {
		return filepath.Abs(h)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory (set EXO_HOME): %w", err)
	}
	return filepath.Join(home, ".exo"), nil
}

// logName is the daemon's log in EXO_HOME.
const logName = "daemon.log"

// LogPath returns where the daemon of an EXO_HOME logs: its daemon.log, or, when EXO_HOME cannot
// be written (a read-only mount, a copy this user may only read), a file beside its socket in
// the runtime folder, so that such a home can still be read and verified.
func LogPath(home string) (string, error) {
	if err := syscall.Access(home, 2 /* W_OK */); err == nil || errors.Is(err, syscall.ENOENT) ||
		!errors.Is(err, syscall.EROFS) && !errors.Is(err, syscall.EACCES) && !errors.Is(err, syscall.EPERM) {
		return filepath.Join(home, logName), nil
	}
	dir, err := RuntimeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, homeKey(home)+".log"), nil
}
