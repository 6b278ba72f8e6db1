package executor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"exo/sandbox"
)

// resolve maps a model-given path into the workspace, refusing escapes.
func (tc toolCtx) resolve(path string) (string, error) {
	if path == "" {
		path = "."
	}
	abs, err := sandbox.ResolveInWorkspace(tc.ws, path)
	if err != nil {
		return "", fmt.Errorf("%s: %v (paths must stay inside the workspace %s)", path, err, tc.ws)
	}
	return abs, nil
}

// rel returns a workspace-relative slash path.
func (tc toolCtx) rel(abs string) string {
	r, err := filepath.Rel(tc.ws, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(r)
}

// pluginConfig are the project files that configure programs exo runs outside the sandbox
// (hooks, unconfined MCP servers): the model's file tools may not write them.
var pluginConfig = map[string]bool{".mcp.json": true, ".exo/settings.json": true, ".exo/settings.local.json": true}

// checkWrite refuses writes outside the session's scope or into the harness's own files.
func (tc toolCtx) checkWrite(abs string) error {
	rel := tc.rel(abs)
	if rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return fmt.Errorf("%s: writing inside .git is not allowed; use git commands through bash", rel)
	}
	if sandbox.IsPrivate(rel, tc.x.h.PrivateIn(tc.ws)) {
		return fmt.Errorf("%s is in exo's own folder (its home, with the sealed secrets and the event log): file tools do not write there", rel)
	}
	if pluginConfig[rel] {
		return fmt.Errorf("%s configures hooks or MCP servers, which run outside the sandbox: exo's file tools do not change it; ask the user to", rel)
	}
	if tc.x.opts.CheckWrite != nil {
		return tc.x.opts.CheckWrite(tc.session, rel)
	}
	return nil
}

// writable resolves a path a file tool will write: inside the workspace and allowed by scope.
func (tc toolCtx) writable(path string) (string, error) {
	abs, err := tc.resolve(path)
	if err != nil {
		return "", err
	}
	return abs, tc.checkWrite(abs)
}

// openWorkspace opens the workspace as the folder every file tool stays beneath: paths are
// resolved by the kernel without following any link, so a link the agent planted (or swapped in
// while a tool runs) never leads exo's own reads and writes outside.
func (tc toolCtx) openWorkspace() (*sandbox.Dir, error) {
	d, err := sandbox.OpenDir(tc.ws)
	if err != nil {
		return nil, fmt.Errorf("open the workspace: %w", err)
	}
	return d, nil
}

// fsError words a file tool's failure; a refused link gets an explanation the model can act on.
func fsError(op, path string, err error) toolOutput {
	if errors.Is(err, sandbox.ErrUnsafePath) {
		return failed(fmt.Sprintf("%s %s: a symbolic link (or a folder replaced by one while exo worked) is in the way; file tools never follow links there. Use the link's target path, or bash.", op, path))
	}
	return failed(fmt.Sprintf("%s %s: %v", op, path, err))
}

// maxEditBytes bounds the files write_file diffs against and edit_file edits in memory.
const maxEditBytes = 16 << 20

// readOld reads an existing file for editing or diffing: "" when it does not exist; too big
// says the file is over maxEditBytes.
func readOld(d *sandbox.Dir, rel string) (old string, tooBig bool, err error) {
	b, err := d.ReadFileLimit(rel, maxEditBytes+1)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	if len(b) > maxEditBytes {
		return "", true, nil
	}
	return string(b), false, nil
}

// runReadFile runs the tool with its arguments decoded.
var runReadFile = decoding(readFile)

func readFile(_ context.Context, tc toolCtx, a *readFileArgs) toolOutput {
	abs, err := tc.resolve(a.Path)
	if err != nil {
		return failed(err.Error())
	}
	if d := tc.x.h.SecretPathDeniedIn(tc.ws, abs); d != "" {
		return tc.x.denySecret(tc, "read_file", d)
	}
	d, err := tc.openWorkspace()
	if err != nil {
		return failed(err.Error())
	}
	defer d.Close()
	f, err := d.Open(tc.rel(abs))
	if err != nil {
		return fsError("read", a.Path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fsError("read", a.Path, err)
	}
	if fi.IsDir() {
		return failed(a.Path + " is a directory; use list_dir")
	}
	return readLines(f, a.Path, fi.Size(), max(a.Offset, 1), a.Limit)
}

// runWriteFile runs the tool with its arguments decoded.
var runWriteFile = decoding(writeFile)

func writeFile(_ context.Context, tc toolCtx, a *writeFileArgs) toolOutput {
	abs, err := tc.writable(a.Path)
	if err != nil {
		return failed(err.Error())
	}
	d, err := tc.openWorkspace()
	if err != nil {
		return failed(err.Error())
	}
	defer d.Close()
	rel := tc.rel(abs)
	old, tooBig, err := readOld(d, rel)
	if err != nil {
		return fsError("write", a.Path, err)
	}
	if err := d.WriteFile(rel, []byte(a.Content), 0o644); err != nil {
		return fsError("write", a.Path, err)
	}
	out := toolOutput{text: fmt.Sprintf("wrote %s (%d bytes)", rel, len(a.Content)), changed: true}
	if !tooBig {
		out.diff = unifiedDiff(tc, rel, old, a.Content)
	}
	return out
}

// runEditFile runs the tool with its arguments decoded.
var runEditFile = decoding(editFile)

func editFile(_ context.Context, tc toolCtx, a *editFileArgs) toolOutput {
	abs, err := tc.writable(a.Path)
	if err != nil {
		return failed(err.Error())
	}
	d, err := tc.openWorkspace()
	if err != nil {
		return failed(err.Error())
	}
	defer d.Close()
	rel := tc.rel(abs)
	if _, err := d.Lstat(rel); err != nil {
		return fsError("edit", a.Path, err)
	}
	old, tooBig, err := readOld(d, rel)
	switch {
	case err != nil:
		return fsError("edit", a.Path, err)
	case tooBig:
		return failed(fmt.Sprintf("edit %s: the file is over %d MiB; edit it with bash (sed, patch)", a.Path, maxEditBytes>>20))
	}
	updated, msg := replaceIn(old, a.OldString, a.NewString, a.ReplaceAll)
	if msg != "" {
		return failed(a.Path + ": " + msg)
	}
	if err := d.WriteFile(rel, []byte(updated), 0o644); err != nil {
		return fsError("edit", a.Path, err)
	}
	return toolOutput{text: "edited " + rel, changed: true, diff: unifiedDiff(tc, rel, old, updated)}
}

// replaceIn performs edit_file's exact replacement, or says why it cannot.
func replaceIn(text, old, new string, all bool) (string, string) {
	if old == "" {
		return "", "old_string is empty; use write_file to create a file"
	}
	if old == new {
		return "", "old_string and new_string are the same"
	}
	n := strings.Count(text, old)
	switch {
	case n == 0:
		return "", "old_string was not found; read the file again and copy the text exactly (whitespace included)"
	case n > 1 && !all:
		return "", fmt.Sprintf("old_string matches %d places; add surrounding lines to make it unique, or set replace_all", n)
	}
	if all {
		return strings.ReplaceAll(text, old, new), ""
	}
	return strings.Replace(text, old, new, 1), ""
}
