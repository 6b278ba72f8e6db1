// Package skills discovers agent skills — folders with a SKILL.md (YAML frontmatter name and
// description, then instructions) — in the project's .exo/skills and .claude/skills and the
// user's $XDG_CONFIG_HOME/exo/skills and ~/.claude/skills. The model sees each skill's name and
// description in the system prompt and loads a skill's body, or a file beside it, with the
// skill tool only when a task calls for it.
package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"exo/harness"
	"exo/harness/commands"
	"exo/harness/executor"
	"exo/harness/provider"
	"exo/sandbox"
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
	// folder holds the skill's folder, named sub inside it.
	folder sandbox.Folder
	sub    string
}

// Dirs lists the skill folders for a workspace, lowest precedence first. The project's lie in
// the agent's workspace: they are read beneath it without following any link.
func Dirs(workspace string) []sandbox.Folder {
	var out []sandbox.Folder
	if home, err := os.UserHomeDir(); err == nil {
		out = append(out, sandbox.FolderIn(workspace, filepath.Join(home, ".claude", "skills")))
	}
	if d := harness.ConfigDir(); d != "" {
		out = append(out, sandbox.FolderIn(workspace, filepath.Join(d, "skills")))
	}
	if workspace != "" {
		out = append(out, sandbox.FolderIn(workspace, filepath.Join(workspace, ".claude", "skills")),
			sandbox.FolderIn(workspace, filepath.Join(workspace, ".exo", "skills")))
	}
	return out
}

// Discover returns the skills found in dirs (DIR/*/SKILL.md), a later folder's skill replacing an
// earlier one of the same name, sorted by name. Skills without a description are skipped.
func Discover(dirs []sandbox.Folder) []Skill {
	byName := map[string]Skill{}
	for _, dir := range dirs {
		fsys, done, err := dir.Open()
		if err != nil {
			continue
		}
		entries, _ := fs.ReadDir(fsys, ".")
		for _, e := range entries {
			if sk, err := read(dir, fsys, e.Name()); err == nil {
				byName[sk.Name] = sk
			}
		}
		done()
	}
	out := make([]Skill, 0, len(byName))
	for _, s := range byName {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// read reads a skill folder's SKILL.md frontmatter.
func read(dir sandbox.Folder, fsys fs.FS, sub string) (Skill, error) {
	b, err := sandbox.ReadFileFS(fsys, path.Join(sub, "SKILL.md"), maxFile)
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
		name = sub
	}
	if strings.TrimSpace(desc) == "" {
		return Skill{}, fmt.Errorf("%s: no description", sub)
	}
	desc = strings.Join(strings.Fields(desc), " ")
	if len(desc) > maxDescription {
		desc = desc[:maxDescription] + "…"
	}
	return Skill{Name: strings.TrimSpace(name), Description: desc, Dir: filepath.Join(dir.Path, sub), folder: dir, sub: sub}, nil
}

// Source offers the skill tool and lists skills in the system prompt; it implements
// executor.ToolSource and executor.SystemPrompter.
type Source struct {
	h *harness.Harness
	// dirs lists a workspace's skill folders; default Dirs.
	dirs func(workspace string) []sandbox.Folder
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
	fsys, done, err := sk.folder.Open()
	if err != nil {
		return executor.ExtResult{Text: err.Error(), IsError: true}
	}
	defer done()
	if file == "" {
		b, err := sandbox.ReadFileFS(fsys, path.Join(sk.sub, "SKILL.md"), maxFile)
		if err != nil {
			return executor.ExtResult{Text: err.Error(), IsError: true}
		}
		_, body, _ := commands.SplitFrontmatter(string(b))
		return executor.ExtResult{Text: fmt.Sprintf("# Skill %s\n\n%s%s", sk.Name, strings.TrimSpace(body), listing(fsys, sk.sub))}
	}
	rel := strings.TrimPrefix(path.Clean("/"+filepath.ToSlash(file)), "/")
	if rel == "" {
		return executor.ExtResult{Text: "give a file inside the skill's folder", IsError: true}
	}
	if sk.folder.Workspace == "" {
		if err := userFileInside(sk.Dir, rel); err != nil {
			return executor.ExtResult{Text: err.Error(), IsError: true}
		}
	}
	b, err := sandbox.ReadFileFS(fsys, path.Join(sk.sub, rel), maxFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return executor.ExtResult{Text: fmt.Sprintf("no file %s in the skill", file), IsError: true}
	case errors.Is(err, sandbox.ErrUnsafePath):
		return executor.ExtResult{Text: fmt.Sprintf("%s goes through a symbolic link; skill files in the project are read without following links", file), IsError: true}
	case err != nil:
		return executor.ExtResult{Text: err.Error(), IsError: true}
	}
	return executor.ExtResult{Text: strings.ToValidUTF8(string(b), "\uFFFD")}
}

// userFileInside refuses a file of a user's own skill that a link leads outside the skill's
// folder (the user's folders are not the agent's: their links are followed, but only inside).
func userFileInside(dir, rel string) error {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	p, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return fmt.Errorf("no file %s in the skill", rel)
	}
	if p != root && !strings.HasPrefix(p, root+string(filepath.Separator)) {
		return fmt.Errorf("%s is outside the skill's folder", rel)
	}
	return nil
}

// listing names the files beside SKILL.md (at most 50).
func listing(fsys fs.FS, sub string) string {
	var files []string
	_ = fs.WalkDir(fsys, sub, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(files) >= 50 {
			return nil
		}
		if rel := strings.TrimPrefix(p, sub+"/"); rel != "SKILL.md" {
			files = append(files, rel)
		}
		return nil
	})
	if len(files) == 0 {
		return ""
	}
	return "\n\nFiles in this skill (read one with the skill tool and file): " + strings.Join(files, ", ")
}
