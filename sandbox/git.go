package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// gitRunner runs git against a shadow repository and a work tree, with an environment
// that ignores the user's global and system config and never touches the user's .git.
type gitRunner struct {
	gitDir, workTree, index string
}

// env is the environment of every shadow git command.
func (g gitRunner) env() []string {
	var env []string
	if g.gitDir != "" {
		env = []string{"GIT_DIR=" + g.gitDir, "GIT_WORK_TREE=" + g.workTree, "GIT_INDEX_FILE=" + g.index}
	}
	env = append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=exo", "GIT_AUTHOR_EMAIL=exo@localhost",
		"GIT_COMMITTER_NAME=exo", "GIT_COMMITTER_EMAIL=exo@localhost", "LC_ALL=C")
	if p := os.Getenv("PATH"); p != "" {
		env = append(env, "PATH="+p)
	}
	if h := os.Getenv("HOME"); h != "" {
		env = append(env, "HOME="+h)
	}
	return env
}

// run runs git with args in the work tree, feeding stdin, and returns stdout.
func (g gitRunner) run(stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = g.workTree
	cmd.Env = g.env()
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := g.runGit(cmd, args[0]); err != nil {
		return out.Bytes(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// line runs git and returns its output trimmed.
func (g gitRunner) line(args ...string) (string, error) {
	out, err := g.run(nil, args...)
	return strings.TrimSpace(string(out)), err
}
