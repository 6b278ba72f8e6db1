package executor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"exo/sandbox"
)

// maxReadBytes bounds what read_file returns at once.
const maxReadBytes = 256 << 10

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

// writeKeepingMode writes data to abs, creating parent directories; an existing file keeps its
// permissions (a script stays executable), a new one is 0644.
func writeKeepingMode(abs string, data []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(abs); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(abs, data, mode); err != nil {
		return err
	}
	return os.Chmod(abs, mode) // WriteFile keeps an existing file's mode only by accident of umask
}

func runReadFile(_ context.Context, tc toolCtx, raw json.RawMessage) toolOutput {
	var a struct {
		Path          string
		Offset, Limit int
	}
	if err := argsOf(raw, &a); err != nil {
		return failed(err.Error())
	}
	abs, err := tc.resolve(a.Path)
	if err != nil {
		return failed(err.Error())
	}
	if d := tc.x.h.SecretPathDenied(abs); d != "" {
		return tc.x.denySecret(tc, "read_file", d)
	}
	f, err := os.Open(abs)
	if err != nil {
		return failed(fmt.Sprintf("read %s: %v", a.Path, err))
	}
	defer f.Close()
	if fi, _ := f.Stat(); fi != nil && fi.IsDir() {
		return failed(a.Path + " is a directory; use list_dir")
	}
	return readLines(f, a.Path, max(a.Offset, 1), a.Limit)
}

// readLines returns numbered lines from offset, at most limit (0: until maxReadBytes).
func readLines(f *os.File, name string, offset, limit int) toolOutput {
	r := bufio.NewReaderSize(f, 64<<10)
	var b strings.Builder
	line, shown := 0, 0
	for {
		text, err := r.ReadString('\n')
		if text == "" && err != nil {
			break
		}
		line++
		if line < offset {
			continue
		}
		if line == offset && bytes.IndexByte([]byte(text), 0) >= 0 {
			return failed(name + " looks binary (it contains NUL bytes); inspect it with bash (e.g. xxd | head)")
		}
		if !utf8.ValidString(text) {
			text = strings.ToValidUTF8(text, "\uFFFD")
		}
		fmt.Fprintf(&b, "%6d\t%s", line, strings.TrimSuffix(text, "\n")+"\n")
		shown++
		if (limit > 0 && shown >= limit) || b.Len() > maxReadBytes {
			fmt.Fprintf(&b, "[stopped at line %d; read on with offset %d]\n", line, line+1)
			break
		}
	}
	if shown == 0 {
		return toolOutput{text: fmt.Sprintf("[%s has %d lines; nothing at offset %d]", name, line, offset)}
	}
	return toolOutput{text: b.String()}
}

func runWriteFile(_ context.Context, tc toolCtx, raw json.RawMessage) toolOutput {
	var a struct{ Path, Content string }
	if err := argsOf(raw, &a); err != nil {
		return failed(err.Error())
	}
	abs, err := tc.writable(a.Path)
	if err != nil {
		return failed(err.Error())
	}
	old, _ := os.ReadFile(abs)
	if err := writeKeepingMode(abs, []byte(a.Content)); err != nil {
		return failed(fmt.Sprintf("write %s: %v", a.Path, err))
	}
	return toolOutput{text: fmt.Sprintf("wrote %s (%d bytes)", tc.rel(abs), len(a.Content)), changed: true,
		diff: unifiedDiff(tc.rel(abs), string(old), a.Content)}
}

func runEditFile(_ context.Context, tc toolCtx, raw json.RawMessage) toolOutput {
	var a struct {
		Path       string `json:"path"`
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	}
	if err := argsOf(raw, &a); err != nil {
		return failed(err.Error())
	}
	abs, err := tc.writable(a.Path)
	if err != nil {
		return failed(err.Error())
	}
	old, err := os.ReadFile(abs)
	if err != nil {
		return failed(fmt.Sprintf("edit %s: %v", a.Path, err))
	}
	updated, msg := replaceIn(string(old), a.OldString, a.NewString, a.ReplaceAll)
	if msg != "" {
		return failed(a.Path + ": " + msg)
	}
	if err := writeKeepingMode(abs, []byte(updated)); err != nil {
		return failed(fmt.Sprintf("edit %s: %v", a.Path, err))
	}
	return toolOutput{text: "edited " + tc.rel(abs), changed: true, diff: unifiedDiff(tc.rel(abs), string(old), updated)}
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

// skipDir reports directories the search tools never descend into.
func skipDir(name string) bool {
	switch name {
	case ".git", "node_modules", ".venv", "venv", "target", "dist", "__pycache__", ".exo":
		return true
	}
	return false
}

// maxListed bounds the entries glob, grep and list_dir return.
const maxListed = 500

func runGlob(_ context.Context, tc toolCtx, raw json.RawMessage) toolOutput {
	var a struct{ Pattern, Path string }
	if err := argsOf(raw, &a); err != nil {
		return failed(err.Error())
	}
	root, err := tc.resolve(a.Path)
	if err != nil {
		return failed(err.Error())
	}
	if !doublestar.ValidatePattern(a.Pattern) {
		return failed("invalid glob pattern " + a.Pattern)
	}
	var out []string
	err = doublestar.GlobWalk(os.DirFS(root), a.Pattern, func(p string, d fs.DirEntry) error {
		if d.IsDir() && skipDir(d.Name()) {
			return fs.SkipDir
		}
		out = append(out, tc.rel(filepath.Join(root, p)))
		if len(out) >= maxListed {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil {
		return failed("glob: " + err.Error())
	}
	sort.Strings(out)
	if len(out) == 0 {
		return toolOutput{text: "no files match " + a.Pattern}
	}
	return toolOutput{text: strings.Join(out, "\n") + listedNote(len(out))}
}

func listedNote(n int) string {
	if n >= maxListed {
		return fmt.Sprintf("\n[stopped at %d entries; narrow the pattern or path]", maxListed)
	}
	return ""
}

func runGrep(ctx context.Context, tc toolCtx, raw json.RawMessage) toolOutput {
	var a struct{ Pattern, Path, Glob string }
	if err := argsOf(raw, &a); err != nil {
		return failed(err.Error())
	}
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return failed("grep: invalid regular expression: " + err.Error())
	}
	root, err := tc.resolve(a.Path)
	if err != nil {
		return failed(err.Error())
	}
	var out []string
	walkErr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		rel := tc.rel(p)
		if a.Glob != "" {
			if ok, _ := doublestar.Match(a.Glob, rel); !ok {
				if ok, _ := doublestar.Match(a.Glob, d.Name()); !ok {
					return nil
				}
			}
		}
		out = grepFile(p, rel, re, out)
		if len(out) >= maxListed {
			return fs.SkipAll
		}
		return nil
	})
	if walkErr != nil {
		return failed("grep: " + walkErr.Error())
	}
	if len(out) == 0 {
		return toolOutput{text: "no matches for " + a.Pattern}
	}
	return toolOutput{text: strings.Join(out, "\n") + listedNote(len(out))}
}

// grepFile appends "path:line: text" for matching lines of a text file.
func grepFile(abs, rel string, re *regexp.Regexp, out []string) []string {
	f, err := os.Open(abs)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if bytes.IndexByte(line, 0) >= 0 {
			return out // binary
		}
		if re.Match(line) {
			text := strings.ToValidUTF8(string(line), "\uFFFD")
			if len(text) > 300 {
				text = text[:300] + "…"
			}
			out = append(out, fmt.Sprintf("%s:%d: %s", rel, n, text))
			if len(out) >= maxListed {
				return out
			}
		}
	}
	return out
}

func runListDir(_ context.Context, tc toolCtx, raw json.RawMessage) toolOutput {
	var a struct{ Path string }
	if err := argsOf(raw, &a); err != nil {
		return failed(err.Error())
	}
	abs, err := tc.resolve(a.Path)
	if err != nil {
		return failed(err.Error())
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return failed(fmt.Sprintf("list %s: %v", a.Path, err))
	}
	var b strings.Builder
	for i, e := range entries {
		if i >= maxListed {
			b.WriteString(listedNote(maxListed))
			break
		}
		if e.IsDir() {
			b.WriteString(e.Name() + "/\n")
			continue
		}
		size := int64(0)
		if fi, err := e.Info(); err == nil {
			size = fi.Size()
		}
		fmt.Fprintf(&b, "%s\t%d\n", e.Name(), size)
	}
	if b.Len() == 0 {
		return toolOutput{text: "(empty directory)"}
	}
	return toolOutput{text: b.String()}
}
