package extexec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"syscall"

	"exo/sandbox"
)

// Dirs are an agent's state folders for one session, under
// $EXO_HOME/executors/<executor>/<session>: the agent's HOME, its own config folder (e.g.
// CLAUDE_CONFIG_DIR, CODEX_HOME) and its temp folder, plus a log of its error output.
//
// The agent may write anywhere in Root, so anything in it may be a link, a named pipe or a hard
// link the agent planted there: exo follows none of them out. SessionDirs refuses folders that
// are not folders (a link in place of the temp folder would become the agent's writable /tmp);
// exo's own files there are read and written through ReadFile and WriteFile, and the error log
// is opened without following a link.
type Dirs struct {
	Root   string
	Home   string
	Config string
	Tmp    string
	// Stderr is the file the agent's error output is appended to.
	Stderr string
}

// safeName is what an executor or session id may look like in a path.
var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// SessionDirs creates (0700) and returns an agent's state folders for a session. A folder that
// is a link or anything but a folder, or an error log that is not a file of its own, is an error
// naming it: exo does not repair what it did not make, and does not follow it.
func SessionDirs(exoHome, executor, sessionID string) (Dirs, error) {
	if !safeName.MatchString(executor) || !safeName.MatchString(sessionID) {
		return Dirs{}, fmt.Errorf("state folder for executor %q, session %q: unsafe name", executor, sessionID)
	}
	root := filepath.Join(exoHome, "executors", executor, sessionID)
	d := Dirs{Root: root, Home: filepath.Join(root, "home"), Config: filepath.Join(root, "config"),
		Tmp: filepath.Join(root, "tmp"), Stderr: filepath.Join(root, "stderr.log")}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return Dirs{}, fmt.Errorf("state folder for %s: %w", executor, err)
	}
	for _, dir := range []string{root, d.Home, d.Config, d.Tmp} {
		if dir != root {
			if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
				return Dirs{}, fmt.Errorf("state folder for %s: %w", executor, err)
			}
		}
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			return Dirs{}, fmt.Errorf("the agent's state folder %s is not a folder (a link or a file is in its place, which exo will not follow); remove it and exo makes a new one: %w", dir, errOrKind(err, fi))
		}
	}
	if fi, err := os.Lstat(d.Stderr); err == nil && !ownFile(fi) {
		return Dirs{}, fmt.Errorf("the agent's error log %s is not a file of its own (%s, which exo will not follow); remove it", d.Stderr, kind(fi))
	}
	return d, nil
}

// errOrKind is err, or what fi is when it is not a folder.
func errOrKind(err error, fi os.FileInfo) error {
	if err != nil {
		return err
	}
	return errors.New(kind(fi))
}

// kind names what a file is.
func kind(fi os.FileInfo) string {
	switch m := fi.Mode(); {
	case m&os.ModeSymlink != 0:
		return "a link"
	case m.IsDir():
		return "a folder"
	case m.IsRegular():
		return "a file with other names (a hard link)"
	}
	return "a special file"
}

// ownFile reports whether fi is a regular file with no other name (a hard link's other name may
// be outside the state folder).
func ownFile(fi os.FileInfo) bool {
	if !fi.Mode().IsRegular() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || st.Nlink <= 1
}

// openLog opens the agent's error log for appending without following a link, and refuses one
// that is not a file of its own.
func openLog(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the agent's error log: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !ownFile(fi) {
		f.Close()
		return nil, fmt.Errorf("the agent's error log %s is not a file of its own", path)
	}
	return f, nil
}

// WriteFile writes exo's file rel (a path under Root, its folders made as needed) without
// following any link: it writes a new file and renames it over rel, so a link or a hard link
// the agent put at rel is replaced, never written through. It goes through the sandbox's Dir,
// exo's one way of touching a folder the agent can write (openat2 RESOLVE_BENEATH refusing every
// link, or a walk with O_NOFOLLOW where openat2 is missing), not os.Root, which follows links
// that stay beneath its folder: a link the agent planted inside Root would take exo's write
// elsewhere in it.
func (d Dirs) WriteFile(rel string, data []byte) error {
	r, err := sandbox.OpenDir(d.Root)
	if err != nil {
		return fmt.Errorf("the agent's state folder: %w", err)
	}
	defer r.Close()
	if err := r.ReplaceFile(rel, bytes.NewReader(data), 0o600); err != nil {
		return fmt.Errorf("the agent's state folder: %w", err)
	}
	return nil
}

// ReadFile reads exo's file rel under Root, at most max bytes, without following any link;
// anything but a regular file (a named pipe, a device) is refused without being opened for
// long (see WriteFile for why sandbox.Dir).
func (d Dirs) ReadFile(rel string, max int64) ([]byte, error) {
	r, err := sandbox.OpenDir(d.Root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("%s is over %d bytes", rel, max)
	}
	return b, err
}
