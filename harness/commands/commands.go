// Package commands reads custom slash commands: Markdown files whose name is the command and
// whose body is the prompt, in Claude Code's format. They live in the project's .exo/commands
// (and .claude/commands) and the user's $XDG_CONFIG_HOME/exo/commands (and ~/.claude/commands);
// a project command replaces a user command of the same name. A subfolder namespaces a command:
// .exo/commands/git/pr.md is /git:pr.
//
// Frontmatter keys: description, argument-hint, model. In the body, $ARGUMENTS is everything
// after the command and $1 … $9 are its words (quotes group words); a body that uses neither gets
// the arguments appended.
package commands

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"exo/harness"
	"exo/sandbox"
)

// Command is one custom slash command.
type Command struct {
	Name         string `json:"name"`
	Description  string `json:"description,omitempty"`
	ArgumentHint string `json:"argument_hint,omitempty"`
	Model        string `json:"model,omitempty"`
	Body         string `json:"-"`
	Source       string `json:"source"`
}

// maxFile bounds a command file.
const maxFile = 256 << 10

// Dirs lists the command folders for a workspace, lowest precedence first. The project's lie
// in the agent's workspace: they are read beneath it without following any link.
func Dirs(workspace string) []sandbox.Folder {
	var out []sandbox.Folder
	if home, err := os.UserHomeDir(); err == nil {
		out = append(out, sandbox.FolderIn(workspace, filepath.Join(home, ".claude", "commands")))
	}
	if d := harness.ConfigDir(); d != "" {
		out = append(out, sandbox.FolderIn(workspace, filepath.Join(d, "commands")))
	}
	if workspace != "" {
		out = append(out, sandbox.FolderIn(workspace, filepath.Join(workspace, ".claude", "commands")),
			sandbox.FolderIn(workspace, filepath.Join(workspace, ".exo", "commands")))
	}
	return out
}

// Discover returns the commands of a workspace, sorted by name. Unreadable or malformed files
// are skipped (Problems lists them).
func Discover(workspace string) []Command {
	cmds, _ := DiscoverIn(Dirs(workspace))
	return cmds
}

// maxCommandFiles bounds how many files one folder's walk looks at.
const maxCommandFiles = 1000

// DiscoverIn reads command folders in precedence order and returns the commands and the files
// it could not read.
func DiscoverIn(dirs []sandbox.Folder) ([]Command, []string) {
	byName := map[string]Command{}
	var problems []string
	for _, dir := range dirs {
		fsys, done, err := dir.Open()
		if err != nil {
			continue
		}
		seen := 0
		_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if seen++; seen > maxCommandFiles {
				return fs.SkipAll
			}
			if err != nil || d.IsDir() || !strings.HasSuffix(d.Name(), ".md") {
				return nil
			}
			c, err := readCommand(dir.Path, fsys, p)
			if err != nil {
				problems = append(problems, err.Error())
				return nil
			}
			byName[c.Name] = c
			return nil
		})
		done()
	}
	out := make([]Command, 0, len(byName))
	for _, c := range byName {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, problems
}

// nameRE is the shape of a command name.
var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.:-]*$`)

// readCommand reads one command file, rel (slash-separated) in the folder dir.
func readCommand(dir string, fsys fs.FS, rel string) (Command, error) {
	path := filepath.Join(dir, filepath.FromSlash(rel))
	name := strings.ToLower(strings.ReplaceAll(strings.TrimSuffix(rel, ".md"), "/", ":"))
	if !nameRE.MatchString(name) {
		return Command{}, fmt.Errorf("%s: %q is not a usable command name", path, name)
	}
	b, err := sandbox.ReadFileFS(fsys, rel, maxFile)
	if err != nil {
		return Command{}, fmt.Errorf("%s: %w", path, err)
	}
	meta, body, err := SplitFrontmatter(string(b))
	if err != nil {
		return Command{}, fmt.Errorf("%s: %w", path, err)
	}
	c := Command{Name: name, Body: body, Source: path}
	c.Description, c.ArgumentHint, c.Model = str(meta["description"]), str(meta["argument-hint"]), str(meta["model"])
	if c.Description == "" {
		c.Description = firstLine(body)
	}
	return c, nil
}

// SplitFrontmatter separates a Markdown file's YAML frontmatter (between --- lines) from its body.
func SplitFrontmatter(text string) (map[string]any, string, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	if !strings.HasPrefix(text, "---\n") && !strings.HasPrefix(text, "---\r\n") {
		return map[string]any{}, text, nil
	}
	rest := text[strings.Index(text, "\n")+1:]
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return nil, "", errors.New("frontmatter has no closing ---")
	}
	meta := map[string]any{}
	if err := yaml.Unmarshal([]byte(rest[:end]), &meta); err != nil {
		return nil, "", fmt.Errorf("frontmatter: %w", err)
	}
	body := rest[end+4:]
	if i := strings.Index(body, "\n"); i >= 0 {
		body = body[i+1:]
	} else {
		body = ""
	}
	return meta, body, nil
}

// str renders a frontmatter value as text.
func str(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(t)
	}
	return strings.TrimSpace(fmt.Sprint(v))
}

// firstLine is the first non-empty line of a body, without Markdown heading marks.
func firstLine(body string) string {
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(l, "# ")); l != "" {
			if len(l) > 80 {
				l = l[:80] + "…"
			}
			return l
		}
	}
	return ""
}

// positional matches $1 … $9.
var positional = regexp.MustCompile(`\$([1-9])`)

// Expand fills a command's body with its arguments.
func (c Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	words := Words(args)
	used := strings.Contains(c.Body, "$ARGUMENTS") || positional.MatchString(c.Body)
	out := strings.ReplaceAll(c.Body, "$ARGUMENTS", args)
	out = positional.ReplaceAllStringFunc(out, func(m string) string {
		i, _ := strconv.Atoi(m[1:])
		if i <= len(words) {
			return words[i-1]
		}
		return ""
	})
	out = strings.TrimSpace(out)
	if !used && args != "" {
		out += "\n\nARGUMENTS: " + args
	}
	return out
}

// Words splits arguments on spaces, keeping "quoted words" and 'quoted words' together.
func Words(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	has := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote, has = r, true
		case quote == 0 && (r == ' ' || r == '\t' || r == '\n'):
			if has {
				out = append(out, cur.String())
				cur.Reset()
				has = false
			}
		default:
			cur.WriteRune(r)
			has = true
		}
	}
	if has {
		out = append(out, cur.String())
	}
	return out
}

// Find returns the named command of a workspace.
func Find(workspace, name string) (Command, bool) {
	for _, c := range Discover(workspace) {
		if c.Name == strings.ToLower(name) {
			return c, true
		}
	}
	return Command{}, false
}

// Expander expands "/name args" prompts for the executor (executor.Options.Expand).
func Expander(s *harness.Session, text string) (prompt, model string, ok bool) {
	name, args, found := strings.Cut(strings.TrimSpace(text), " ")
	if !strings.HasPrefix(name, "/") || len(name) < 2 {
		return "", "", false
	}
	if !found {
		args = ""
	}
	c, ok := Find(s.Workspace, name[1:])
	if !ok {
		return "", "", false
	}
	return c.Expand(args), c.Model, true
}
