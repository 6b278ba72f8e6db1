package config

import (
	"os"
	"path/filepath"
	"strings"

	"exo/harness/api"
)

// InstructionNames are the instruction files read in a folder, in order: Codex's and others'
// AGENTS.md, then Claude Code's CLAUDE.md (a folder may have both; the same text twice joins
// once).
var InstructionNames = []string{"AGENTS.md", "CLAUDE.md"}

// MaxInstructionBytes bounds how much of one instruction file joins the prompt (as Codex's
// project_doc_max_bytes); the rest is cut with a note.
const MaxInstructionBytes = 32 << 10

// UserInstructionsFile is the user's own instructions for every session: AGENTS.md beside the
// user's config.toml ("" without a home folder).
func UserInstructionsFile() string {
	f := UserFile()
	if f == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(f), "AGENTS.md")
}

// InstructionChain lists the folders whose instruction files apply to dir, outermost first:
// the repository's root (the nearest folder up that holds .git) down to dir; outside a
// repository, dir alone. Folders under stop (exo's home) are never climbed to.
func InstructionChain(dir, stop string) []string {
	dir = filepath.Clean(dir)
	chain := []string{dir}
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return chain
		}
		up := filepath.Dir(d)
		if up == d || (stop != "" && within(up, stop)) {
			return []string{dir} // no repository above dir: its own folder only
		}
		d = up
		chain = append([]string{d}, chain...)
	}
}

// within reports whether path is dir or under it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// FindInstructions lists the instruction files that apply to dir: the user's file, then each
// folder's of InstructionChain, outermost first. It reads nothing but their sizes.
func FindInstructions(userFile, dir, stop string) []api.InstructionSource {
	var out []api.InstructionSource
	add := func(path, scope string) {
		fi, err := os.Stat(path)
		if err != nil || !fi.Mode().IsRegular() {
			return
		}
		out = append(out, api.InstructionSource{Path: path, Scope: scope, Bytes: fi.Size(), Truncated: fi.Size() > MaxInstructionBytes})
	}
	if userFile != "" {
		add(userFile, api.InstructionsUser)
	}
	for _, d := range InstructionChain(dir, stop) {
		for _, name := range InstructionNames {
			add(filepath.Join(d, name), api.InstructionsProject)
		}
	}
	return out
}
