package sessions

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// ProjectIDKey is the session setting that names a session's project the same way on every
// machine: its workspace's git remote, else its repository's root commit. Governance compares
// sessions of one project by it (their workspaces are different paths on different machines);
// a fork inherits it with the other settings.
const ProjectIDKey = "project_id"

// ProjectID names the project of a workspace so that clones of one repository agree on it
// wherever they are: "git:<host>/<path>" from the origin remote's URL (else the first remote's),
// without scheme, credentials, port or ".git"; else "git-root:<sha>" from the first root commit
// of HEAD; else "" (no git repository: the workspace path is all there is).
func ProjectID(workspace string) string {
	if workspace == "" || !inRepository(workspace) {
		return ""
	}
	if out, err := git(workspace, "config", "--get-regexp", `^remote\..*\.url$`); err == nil {
		if id := remoteID(out); id != "" {
			return "git:" + id
		}
	}
	if out, err := git(workspace, "rev-list", "--max-parents=0", "HEAD"); err == nil {
		roots := strings.Fields(out)
		sort.Strings(roots)
		if len(roots) > 0 {
			return "git-root:" + roots[0]
		}
	}
	return ""
}

// inRepository reports whether git could find a repository for dir: GIT_DIR is set, or dir or
// one of its parents holds a .git entry or is itself a git directory. Outside one, ProjectID
// runs no git (two processes on the path of every new session); when unsure it says yes.
func inRepository(dir string) bool {
	if os.Getenv("GIT_DIR") != "" {
		return true
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return true
	}
	for {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil || !os.IsNotExist(err) {
			return true
		}
		if isGitDir(d) {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}

// isGitDir reports whether d looks like a git directory (a bare repository) as git's own
// discovery checks: a HEAD file and an objects and a refs folder.
func isGitDir(d string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Lstat(filepath.Join(d, name)); err != nil {
			return false
		}
	}
	return true
}

// git runs a read-only git command in dir, without prompts, bounded in time.
func git(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.Output()
	return string(out), err
}

// remoteID picks the origin remote's URL (else the first remote's, by name) from `git config
// --get-regexp` lines and normalises it.
func remoteID(lines string) string {
	urls := map[string]string{}
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(lines), "\n") {
		key, val, ok := strings.Cut(l, " ")
		name := strings.TrimSuffix(strings.TrimPrefix(key, "remote."), ".url")
		if !ok || val == "" || urls[name] != "" {
			continue
		}
		urls[name] = val
		names = append(names, name)
	}
	if u := urls["origin"]; u != "" {
		return normalizeRemote(u)
	}
	sort.Strings(names)
	if len(names) > 0 {
		return normalizeRemote(urls[names[0]])
	}
	return ""
}

// normalizeRemote turns the spellings of one remote into one name: https://user:token@host:443/
// org/repo.git, ssh://git@host/org/repo and git@host:org/repo are all host/org/repo (never any
// credentials). A local path stays a cleaned path.
func normalizeRemote(raw string) string {
	raw = strings.TrimSpace(raw)
	host, path := "", raw
	u, err := url.Parse(raw)
	switch at, rest, scp := strings.Cut(raw, ":"); {
	case err == nil && u.Scheme == "file":
		path = u.Path
	case err == nil && u.Scheme != "" && u.Host != "":
		host, path = u.Hostname(), u.Path
	case scp && !strings.Contains(at, "/"): // [user@]host:path
		host, path = at[strings.LastIndexByte(at, '@')+1:], rest
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if host == "" {
		return filepath.Clean("/" + path)
	}
	return strings.ToLower(host) + "/" + path
}
