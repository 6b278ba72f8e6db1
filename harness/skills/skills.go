// Package skills discovers agent skills — folders with a SKILL.md (YAML frontmatter name and
// description, then instructions) — in the project's .exo/skills and .claude/skills and the
// user's $XDG_CONFIG_HOME/exo/skills and ~/.claude/skills. The model sees each skill's name and
// description in the system prompt and loads a skill's body, or a file beside it, with the
// skill tool only when a task calls for it.
package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"exo/harness"
	"exo/harness/commands"
	"exo/harness/executor"
	"exo/harness/provider"
)

// ToolName is the tool that loads a skill.
const ToolName = "skill"

// Limits: how much of a skill's description joins the system prompt, and how much of a file the
// tool returns.
const (
	maxDescription = 1024
	maxFile        = 256 << 10
)

// Skill is one discovered skill.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Dir         string `json:"dir"`
}

// Dirs lists the skill folders for a workspace, lowest precedence first.
func Dirs(workspace string) []string {
	var out []string
	if home, err := os.UserHomeDir(); err == nil {
		out = append(out, filepath.Join(home, ".claude", "skills"))
	}
	if d := harness.ConfigDir(); d != "" {
		out = append(out, filepath.Join(d, "skills"))
	}
	if workspace != "" {
		out = append(out, filepath.Join(workspace, ".claude", "skills"), filepath.Join(workspace, ".exo", "skills"))
	}
	return out
}

// Discover returns the skills found in dirs (DIR/*/SKILL.md), a later folder's skill replacing an
// earlier one of the same name, sorted by name. Skills without a description are skipped.
func Discover(dirs []string) []Skill {
	byName := map[string]Skill{}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			sk, err := read(filepath.Join(dir, e.Name()))
			if err == nil {
				byName[sk.Name] = sk
			}
		}
	}
	out := make([]Skill, 0, len(byName))
	for _, s := range byName {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// read reads a skill folder's SKILL.md frontmatter.
func read(dir string) (Skill, error) {
	b, err := readBounded(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		return Skill{}, err
	}
	meta, _, err := commands.SplitFrontmatter(string(b))
	if err != nil {
		return Skill{}, err
	}
	name, _ := meta["name"].(string)
	desc, _ := meta["description"].(string)
	if name == "" {
		name = filepath.Base(dir)
	}
	if strings.TrimSpace(desc) == "" {
		return Skill{}, fmt.Errorf("%s: no description", dir)
	}
	desc = strings.Join(strings.Fields(desc), " ")
	if len(desc) > maxDescription {
		desc = desc[:maxDescription] + "…"
	}
	return Skill{Name: strings.TrimSpace(name), Description: desc, Dir: dir}, nil
}

// readBounded reads a file of at most maxFile bytes.
func readBounded(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxFile {
		return nil, fmt.Errorf("%s is larger than %d KiB", path, maxFile>>10)
	}
	return os.ReadFile(path)
}

// Source offers the skill tool and lists skills in the system prompt; it implements
// executor.ToolSource and executor.SystemPrompter.
type Source struct {
	h *harness.Harness
	// dirs lists a workspace's skill folders; default Dirs.
	dirs func(workspace string) []string
}

var (
	_ executor.ToolSource     = (*Source)(nil)
	_ executor.SystemPrompter = (*Source)(nil)
)

// NewSource returns the skills source over a harness.
func NewSource(h *harness.Harness) *Source { return &Source{h: h, dirs: Dirs} }

// skillsOf lists a session's skills.
func (s *Source) skillsOf(sessionID string) []Skill {
	sess, err := s.h.Session(sessionID)
	if err != nil {
		return nil
	}
	return Discover(s.dirs(sess.Workspace))
}

// SystemPrompt lists the skills by name and description.
func (s *Source) SystemPrompt(sess *harness.Session) string {
	list := Discover(s.dirs(sess.Workspace))
	if len(list) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Skills\n\nSkills are instructions for particular tasks. When a task matches a skill's description, load it with the skill tool (name) before you start, and follow it; it may point to files beside it, which the same tool reads (name and file).\n\n")
	for _, sk := range list {
		fmt.Fprintf(&b, "- %s: %s\n", sk.Name, sk.Description)
	}
	return b.String()
}

// Tools offers the skill tool when the session has skills.
func (s *Source) Tools(_ context.Context, sessionID string) []provider.Tool {
	if len(s.skillsOf(sessionID)) == 0 {
		return nil
	}
	return []provider.Tool{{Name: ToolName, Description: "Load a skill's instructions (SKILL.md) by name, or with file a file from the skill's folder (a path relative to it).",
		Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"the skill's name"},"file":{"type":"string","description":"optional: a file in the skill's folder"}},"required":["name"]}`)}}
}

// Policy says the skill tool runs without asking (it only reads skill files).
func (s *Source) Policy(name string) (string, bool) {
	if name == ToolName {
		return "auto", true
	}
	return "", false
}

// Call loads a skill's body or one of its files.
func (s *Source) Call(_ context.Context, c executor.ExtCall) executor.ExtResult {
	var a struct {
		Name string `json:"name"`
		File string `json:"file"`
	}
	if err := json.Unmarshal(c.Args, &a); err != nil || a.Name == "" {
		return executor.ExtResult{Text: "give the skill's name: {\"name\": \"…\"}", IsError: true}
	}
	list := Discover(s.dirs(c.Workspace))
	for _, sk := range list {
		if sk.Name == a.Name {
			return load(sk, a.File)
		}
	}
	var names []string
	for _, sk := range list {
		names = append(names, sk.Name)
	}
	return executor.ExtResult{Text: fmt.Sprintf("no skill %q; the skills are: %s", a.Name, strings.Join(names, ", ")), IsError: true}
}

// load returns a skill's body (with the files beside it) or one of its files.
func load(sk Skill, file string) executor.ExtResult {
	if file == "" {
		b, err := readBounded(filepath.Join(sk.Dir, "SKILL.md"))
		if err != nil {
			return executor.ExtResult{Text: err.Error(), IsError: true}
		}
		_, body, _ := commands.SplitFrontmatter(string(b))
		return executor.ExtResult{Text: fmt.Sprintf("# Skill %s\n\n%s%s", sk.Name, strings.TrimSpace(body), listing(sk.Dir))}
	}
	path, err := within(sk.Dir, file)
	if err != nil {
		return executor.ExtResult{Text: err.Error(), IsError: true}
	}
	b, err := readBounded(path)
	if err != nil {
		return executor.ExtResult{Text: err.Error(), IsError: true}
	}
	return executor.ExtResult{Text: strings.ToValidUTF8(string(b), "\uFFFD")}
}

// within resolves a file inside a skill's folder, refusing anything outside it (symlinks too).
func within(dir, file string) (string, error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	p, err := filepath.EvalSymlinks(filepath.Join(root, filepath.Clean("/"+file)))
	if err != nil {
		return "", fmt.Errorf("no file %s in the skill", file)
	}
	if p != root && !strings.HasPrefix(p, root+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the skill's folder", file)
	}
	return p, nil
}

// listing names the files beside SKILL.md (at most 50).
func listing(dir string) string {
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(files) >= 50 {
			return nil
		}
		if rel, _ := filepath.Rel(dir, p); rel != "SKILL.md" {
			files = append(files, rel)
		}
		return nil
	})
	if len(files) == 0 {
		return ""
	}
	return "\n\nFiles in this skill (read one with the skill tool and file): " + strings.Join(files, ", ")
}
