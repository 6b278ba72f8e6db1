package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"golang.org/x/sys/unix"
)

// WalkOptions choose what WalkFiles leaves out.
type WalkOptions struct {
	// IncludeIgnored also walks what .gitignore files, .git/info/exclude and the list of
	// dependency and build folders (node_modules, target, .venv…) leave out; .git never is.
	IncludeIgnored bool
	// Private are exo's own folders inside the walked folder (slash paths relative to it, as
	// PrivateRels gives them): never walked, IncludeIgnored or not.
	Private []string
}

// maxIgnoreFile bounds the bytes read of one ignore file (a larger one is read up to it).
const maxIgnoreFile = 1 << 20

// skippedDirs are folders left out even where no .gitignore names them: dependencies, build
// output and tools' state, which a search almost never means.
var skippedDirs = map[string]bool{
	"node_modules": true, ".venv": true, "venv": true, "target": true, "dist": true,
	"__pycache__": true, ".exo": true,
}

// WalkFiles calls fn for every entry beneath root (a slash path relative to d, "." for all of
// d) in lexical order, root itself excluded: folders before what they hold. .git is never
// entered; unless opts.IncludeIgnored, what git would ignore is left out too: the patterns of
// the .gitignore files of each folder from d down (nested files refine their parents', "!"
// re-includes), .git/info/exclude when d holds a .git folder, and skippedDirs. The user's
// global excludes file is not read: exo's git reads no user config (see gitRunner.env), so
// the agent sees the same files on every machine. Links are reported and never followed.
// A root that is itself ignored was asked for by name and is walked. fn may return fs.SkipDir
// (for a folder: not entered) or fs.SkipAll.
func WalkFiles(d *Dir, root string, opts WalkOptions, fn func(rel string, e fs.DirEntry) error) error {
	root, err := cleanRel(root)
	if err != nil {
		return err
	}
	w := ignoreWalk{d: d, root: root, opts: opts, fn: fn}
	var pats []gitignore.Pattern
	if !opts.IncludeIgnored {
		pats = w.rootPatterns(root)
	}
	err = w.dir(root, pats)
	if errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

// ignoreWalk is one WalkFiles call.
type ignoreWalk struct {
	d    *Dir
	root string
	opts WalkOptions
	fn   func(string, fs.DirEntry) error
}

// rootPatterns reads .git/info/exclude and the .gitignore files of the folders above root. A
// root that they ignore was asked for by name: what is above it no longer applies (its own
// .gitignore files still do).
func (w ignoreWalk) rootPatterns(root string) []gitignore.Pattern {
	pats := w.read(".git/info/exclude", nil)
	if root == "." {
		return pats
	}
	parts := strings.Split(root, "/")
	for i := range parts {
		pats = append(pats, w.read(path.Join(append(parts[:i:i], ".gitignore")...), parts[:i])...)
		if skippedDirs[parts[i]] || gitignore.NewMatcher(pats).Match(parts[:i+1], true) {
			pats = nil
		}
	}
	return pats
}

// read parses the ignore file rel, whose patterns apply beneath domain; a missing or unreadable
// file (a link, a folder) has none.
func (w ignoreWalk) read(rel string, domain []string) []gitignore.Pattern {
	b, err := w.d.ReadFileLimit(rel, maxIgnoreFile)
	if err != nil {
		return nil
	}
	return ParseIgnore(b, domain)
}

// ParseIgnore parses the lines of a .gitignore file whose patterns apply beneath domain (the
// folder's path components, none for the top): blank lines and comments are skipped, a
// trailing carriage return is dropped.
func ParseIgnore(b []byte, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), maxIgnoreFile)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// dir walks the folder rel with the patterns in force above it.
func (w ignoreWalk) dir(rel string, pats []gitignore.Pattern) error {
	entries, err := w.d.readDirTypes(rel)
	if err != nil && rel != w.root {
		return nil // unreadable, or swapped for a link since it was listed: left out.
	}
	if err != nil {
		return fmt.Errorf("walk %s: %w", rel, err)
	}
	var domain []string
	if rel != "." {
		domain = strings.Split(rel, "/")
	}
	if !w.opts.IncludeIgnored && hasRegular(entries, ".gitignore") {
		pats = append(pats[:len(pats):len(pats)], w.read(path.Join(rel, ".gitignore"), domain)...)
	}
	m := gitignore.NewMatcher(pats)
	for _, e := range entries {
		if err := w.entry(rel, domain, e, m, pats); err != nil {
			return err
		}
	}
	return nil
}

// entry reports one entry of the folder rel and walks it when it is a folder.
func (w ignoreWalk) entry(rel string, domain []string, e fs.DirEntry, m gitignore.Matcher, pats []gitignore.Pattern) error {
	name := e.Name()
	if name == ".git" || IsPrivate(path.Join(rel, name), w.opts.Private) {
		return nil
	}
	if !w.opts.IncludeIgnored {
		if e.IsDir() && skippedDirs[name] {
			return nil
		}
		parts := append(domain[:len(domain):len(domain)], name)
		if m.Match(parts, e.IsDir()) {
			return nil
		}
	}
	p := path.Join(rel, name)
	err := w.fn(p, e)
	if errors.Is(err, fs.SkipDir) {
		return nil
	}
	if err != nil || !e.IsDir() {
		return err
	}
	return w.dir(p, pats)
}

// hasRegular reports whether entries hold a regular file called name.
func hasRegular(entries []fs.DirEntry, name string) bool {
	for _, e := range entries {
		if e.Name() == name {
			return e.Type().IsRegular()
		}
	}
	return false
}

// readDirTypes lists rel sorted by name with each entry's type as the folder listing gives it
// (no stat per entry, which would cost the walk most of its time); Info describes an entry
// without following it, through the Dir.
func (d *Dir) readDirTypes(rel string) ([]fs.DirEntry, error) {
	f, err := d.OpenFile(rel, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	es, err := f.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", rel, err)
	}
	out := make([]fs.DirEntry, len(es))
	for i, e := range es {
		out[i] = typedEntry{name: e.Name(), typ: e.Type(), d: d, rel: path.Join(rel, e.Name())}
	}
	sortEntries(out)
	return out, nil
}

// typedEntry is a folder entry whose type came from the listing.
type typedEntry struct {
	name string
	typ  fs.FileMode
	d    *Dir
	rel  string
}

// Name returns the entry's name.
func (e typedEntry) Name() string { return e.name }

// IsDir reports whether the entry is a folder (a link to one is not).
func (e typedEntry) IsDir() bool { return e.typ.IsDir() }

// Type returns the entry's type bits.
func (e typedEntry) Type() fs.FileMode { return e.typ }

// Info describes the entry without following it.
func (e typedEntry) Info() (fs.FileInfo, error) { return e.d.Lstat(e.rel) }
