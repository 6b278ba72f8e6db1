package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"exo/harness"
	"exo/sandbox"
)

// Hook events.
const (
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	UserPromptSubmit = "UserPromptSubmit"
	Stop             = "Stop"
	SessionStart     = "SessionStart"
	PreCompact       = "PreCompact"
)

// Events lists the hook events exo runs.
var Events = []string{PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart, PreCompact}

// DefaultTimeout bounds a hook without a timeout of its own.
const DefaultTimeout = 60 * time.Second

// Hook is one command hook.
type Hook struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	// Timeout is in seconds; 0 means DefaultTimeout.
	Timeout int `json:"timeout,omitempty"`
}

// Group is hooks under one matcher: a tool name, "A|B" (exact names), a regular expression,
// or "" / "*" for every tool. Events without tools ignore it.
type Group struct {
	Matcher string `json:"matcher,omitempty"`
	Hooks   []Hook `json:"hooks"`
}

// Settings is the part of a settings file exo reads.
type Settings struct {
	Hooks map[string][]Group `json:"hooks"`
}

// Configured is a hook with where it was configured.
type Configured struct {
	Event   string
	Matcher string
	Source  string
	Hook
	re *regexp.Regexp
}

// Files lists the settings files for a workspace, in merge order.
func Files(workspace string) []string {
	var out []string
	if d := harness.ConfigDir(); d != "" {
		out = append(out, filepath.Join(d, "settings.json"))
	}
	if workspace != "" {
		out = append(out, filepath.Join(workspace, ".exo", "settings.json"), filepath.Join(workspace, ".exo", "settings.local.json"))
	}
	return out
}

// maxSettingsFile bounds a settings file.
const maxSettingsFile = 1 << 20

// Load reads the hooks of the files (missing files are skipped; a malformed one is an error
// naming it); those in workspace are read beneath it without following links.
func Load(workspace string, files []string) ([]Configured, error) {
	hs, _, err := LoadChecked(workspace, files, nil)
	return hs, err
}

// LoadChecked is Load with a check of each file's contents (nil checks nothing): the hooks of a
// file it refuses are left out, and its reasons are returned. Only regular files of at most
// 1 MiB are read.
func LoadChecked(workspace string, files []string, check func(path string, data []byte) error) ([]Configured, []string, error) {
	var out []Configured
	var refused []string
	for _, f := range files {
		b, err := sandbox.ReadFileIn(workspace, f, maxSettingsFile)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read hooks: %w", err)
		}
		hs, err := Parse(f, b)
		if err != nil {
			return nil, nil, err
		}
		if len(hs) > 0 && check != nil {
			if err := check(f, b); err != nil {
				refused = append(refused, fmt.Sprintf("%d hook(s) in %s not run: %v", len(hs), f, err))
				continue
			}
		}
		out = append(out, hs...)
	}
	return out, refused, nil
}

// Parse reads the hooks of a settings file's contents (path names it in errors and as their
// source).
func Parse(path string, data []byte) ([]Configured, error) {
	var s Settings
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("hooks in %s: %w", path, err)
	}
	return flatten(s, path)
}

// flatten lists a file's hooks, checking events, types and matchers.
func flatten(s Settings, src string) ([]Configured, error) {
	var out []Configured
	for ev, groups := range s.Hooks {
		if !known(ev) {
			continue // events exo does not run (Notification, SessionEnd…) are ignored
		}
		for _, g := range groups {
			re, err := compileMatcher(g.Matcher)
			if err != nil {
				return nil, fmt.Errorf("hooks in %s: %s matcher %q: %w", src, ev, g.Matcher, err)
			}
			for _, h := range g.Hooks {
				if h.Type != "" && h.Type != "command" {
					continue // prompt and agent hooks are Claude Code's own
				}
				if strings.TrimSpace(h.Command) == "" {
					return nil, fmt.Errorf("hooks in %s: a %s hook has no command", src, ev)
				}
				out = append(out, Configured{Event: ev, Matcher: g.Matcher, Source: src, Hook: h, re: re})
			}
		}
	}
	return out, nil
}

// known reports whether exo runs an event.
func known(ev string) bool {
	for _, e := range Events {
		if e == ev {
			return true
		}
	}
	return false
}

// plainMatcher is a matcher of plain names separated by |, matched exactly.
var plainMatcher = regexp.MustCompile(`^[A-Za-z0-9_|-]+$`)

// compileMatcher turns a matcher into a regular expression: "" and "*" match everything, plain
// names (A|B) match exactly, anything else is a regular expression searched in the name.
func compileMatcher(m string) (*regexp.Regexp, error) {
	switch {
	case m == "" || m == "*":
		return nil, nil
	case plainMatcher.MatchString(m):
		return regexp.Compile("^(?:" + m + ")$")
	}
	return regexp.Compile(m)
}

// claudeNames are Claude Code's names of exo's tools, so matchers written for Claude Code
// ("Bash", "Write|Edit") select the same tools here.
var claudeNames = map[string]string{
	"bash": "Bash", "read_file": "Read", "write_file": "Write", "edit_file": "Edit",
	"glob": "Glob", "grep": "Grep", "list_dir": "LS", "spawn_agent": "Task",
	"todo_write": "TodoWrite",
}

// Matches reports whether a hook applies to a tool (by exo's name or Claude Code's).
func (c Configured) Matches(tool string) bool {
	if c.re == nil {
		return true
	}
	if c.re.MatchString(tool) {
		return true
	}
	alias, ok := claudeNames[tool]
	return ok && c.re.MatchString(alias)
}

// timeout is the hook's timeout.
func (c Configured) timeout() time.Duration {
	if c.Timeout > 0 {
		return time.Duration(c.Timeout) * time.Second
	}
	return DefaultTimeout
}
