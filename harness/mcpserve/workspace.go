package mcpserve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// allowedWorkspace refuses a new session's workspace that the user has not put within the
// calling agent's reach. Allowed are: exo mcp serve's own directory and what is beneath it
// (unless that directory is / or the user's home, where clients such as Claude Desktop start
// servers without meaning a project), the folders given with --allow and what is beneath
// them, and the workspace of an existing exo session. Paths are compared with symbolic links
// resolved, so a link cannot smuggle another folder in.
func (t *tools) allowedWorkspace(ctx context.Context, ws string) error {
	if !filepath.IsAbs(ws) {
		return fmt.Errorf("workspace %q: give an absolute path", ws)
	}
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return fmt.Errorf("workspace %s: %w", ws, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return fmt.Errorf("workspace %s is not a directory", ws)
	}
	for _, root := range t.roots() {
		if within(real, root) {
			return nil
		}
	}
	ss, err := t.c.ListSessions(ctx)
	if err != nil {
		return err
	}
	for _, s := range ss {
		if r, err := filepath.EvalSymlinks(s.Session.Workspace); err == nil && r == real {
			return nil
		}
	}
	return fmt.Errorf("workspace %s is not one the user opened to other agents: new sessions may work in exo mcp serve's directory%s "+
		"or beneath it, beneath a folder given with 'exo mcp serve --allow DIR', or in the workspace of an existing exo session "+
		"(the user can create one there with exo)", ws, t.serveDirNote())
}

// roots are the folders new sessions may work beneath, symbolic links resolved.
func (t *tools) roots() []string {
	var out []string
	if d := realDir(t.o.Workspace); d != "" && !tooBroad(d) {
		out = append(out, d)
	}
	for _, a := range t.o.Allow {
		if d := realDir(a); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// serveDirNote names serve's directory, or says why it does not count.
func (t *tools) serveDirNote() string {
	d := realDir(t.o.Workspace)
	switch {
	case d == "":
		return ""
	case tooBroad(d):
		return " (" + d + " is the filesystem root or the home folder, which does not count)"
	}
	return " (" + d + ")"
}

// tooBroad reports whether a directory is / or the user's home: too broad to mean a project.
func tooBroad(d string) bool {
	if d == string(filepath.Separator) {
		return true
	}
	home, err := os.UserHomeDir()
	return err == nil && realDir(home) == d
}

// realDir is an absolute directory with symbolic links resolved ("" when it cannot be).
func realDir(d string) string {
	if d == "" || !filepath.IsAbs(d) {
		return ""
	}
	r, err := filepath.EvalSymlinks(d)
	if err != nil {
		return ""
	}
	return r
}

// within reports whether path is dir or beneath it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
