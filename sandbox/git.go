package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// gitRunner runs git against a shadow repository and a work tree, or (without gitDir) in a
// user's repository; every command is built by gitCommand.
type gitRunner struct {
	gitDir, workTree, index string
	// objects, when set, is the object folder (GIT_OBJECT_DIRECTORY) of a pinned git dir.
	objects string
	// readOnly keeps git from refreshing the index it reads (GIT_OPTIONAL_LOCKS=0).
	readOnly bool
	// neutral are extra -c overrides that disarm the commands a user repository configures.
	neutral []string
}

// hardenedConfig are the -c overrides of every git command exo runs: command-line config
// beats the repository's own, so no hook, fsmonitor, pager, editor, askpass, credential
// helper, ssh command or transport configured in a workspace's .git/config (or a file it
// includes) can run code on the host.
var hardenedConfig = []string{
	"core.hooksPath=/dev/null",
	"core.fsmonitor=false",
	"core.sshCommand=false",
	"core.askPass=",
	"core.pager=cat",
	"core.editor=false",
	"sequence.editor=false",
	"credential.helper=",
	"protocol.allow=never",
	"gpg.program=false",
	// Submodules and nested repositories have config of their own that no override above
	// reaches: git never enters them.
	"submodule.recurse=false",
	"diff.ignoreSubmodules=all",
	"status.submoduleSummary=false",
	"fetch.recurseSubmodules=false",
}

// gitCommand builds the one hardened way exo runs git: a minimal environment (no system or
// global config, no prompts, no pager, no replace objects), the hardened -c overrides plus
// g.neutral, and the shadow repository's GIT_DIR, work tree and index when set.
func (g gitRunner) gitCommand(args ...string) *exec.Cmd {
	cmd := exec.Command("git", g.argv(args...)...)
	cmd.Dir = g.workTree
	cmd.Env = g.env()
	return cmd
}

// argv is git's arguments: the hardened overrides, g.neutral, then args.
func (g gitRunner) argv(args ...string) []string {
	argv := make([]string, 0, 2*(len(hardenedConfig)+len(g.neutral))+len(args))
	for _, kv := range hardenedConfig {
		argv = append(argv, "-c", kv)
	}
	for _, kv := range g.neutral {
		argv = append(argv, "-c", kv)
	}
	return append(argv, args...)
}

// env is the environment of every git command: nothing of exo's own environment but PATH
// and HOME passes.
func (g gitRunner) env() []string {
	var env []string
	if g.gitDir != "" {
		env = append(env, "GIT_DIR="+g.gitDir, "GIT_WORK_TREE="+g.workTree)
	}
	if g.objects != "" {
		env = append(env, "GIT_OBJECT_DIRECTORY="+g.objects)
	}
	if g.index != "" {
		env = append(env, "GIT_INDEX_FILE="+g.index)
	}
	if g.index == "" || g.readOnly {
		// The user's repository: a status killed with exo must not leave its index locked.
		env = append(env, "GIT_OPTIONAL_LOCKS=0")
	}
	env = append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat",
		"GIT_EDITOR=false", "GIT_NO_REPLACE_OBJECTS=1", "GIT_PROTOCOL_FROM_USER=0", "GIT_NO_LAZY_FETCH=1",
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
	cmd := g.gitCommand(args...)
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
