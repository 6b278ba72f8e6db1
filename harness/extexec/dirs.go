package extexec

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// Dirs are an agent's state folders for one session, under
// $EXO_HOME/executors/<executor>/<session>: the agent's HOME, its own config folder (e.g.
// CLAUDE_CONFIG_DIR, CODEX_HOME) and its temp folder, plus a log of its error output.
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

// SessionDirs creates (0700) and returns an agent's state folders for a session.
func SessionDirs(exoHome, executor, sessionID string) (Dirs, error) {
	if !safeName.MatchString(executor) || !safeName.MatchString(sessionID) {
		return Dirs{}, fmt.Errorf("state folder for executor %q, session %q: unsafe name", executor, sessionID)
	}
	root := filepath.Join(exoHome, "executors", executor, sessionID)
	d := Dirs{Root: root, Home: filepath.Join(root, "home"), Config: filepath.Join(root, "config"),
		Tmp: filepath.Join(root, "tmp"), Stderr: filepath.Join(root, "stderr.log")}
	for _, dir := range []string{d.Home, d.Config, d.Tmp} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return Dirs{}, fmt.Errorf("state folder for %s: %w", executor, err)
		}
	}
	return d, nil
}
