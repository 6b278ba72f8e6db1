package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// treeEntry is one path to put in the workspace: its git mode and blob, or a removal.
type treeEntry struct {
	path, mode, sha string
	remove          bool
}

// checkout makes the workspace files that differ between the trees from and to match to.
// exo writes them itself, beneath the workspace and without following any link (git is only
// asked for the list and the blobs), so a link the agent planted or swaps in while the restore
// runs can never make it write or delete outside the workspace.
func (s *Snapshotter) checkout(from, to string) error {
	out, err := s.git.run(nil, "diff-tree", "-r", "-z", "--no-renames", "--raw", from, to)
	if err != nil {
		return err
	}
	return s.apply(parseRawDiff(out))
}

// parseRawDiff parses `diff-tree -r -z --raw` into removals and writes; a type change is both.
func parseRawDiff(out []byte) []treeEntry {
	f := bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0})
	var es []treeEntry
	for i := 0; i+1 < len(f); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(string(f[i]), ":"))
		if len(meta) < 5 {
			continue
		}
		p, newMode, sha, status := string(f[i+1]), meta[1], meta[3], meta[4]
		if status == "D" || (status == "T" && newMode != meta[0]) {
			es = append(es, treeEntry{path: p, remove: true})
		}
		if status != "D" {
			es = append(es, treeEntry{path: p, mode: newMode, sha: sha})
		}
	}
	return es
}

// apply removes (deepest first, then emptied folders) and writes the entries.
func (s *Snapshotter) apply(es []treeEntry) error {
	d, err := OpenDir(s.git.workTree)
	if err != nil {
		return err
	}
	defer d.Close()
	es = slices.DeleteFunc(slices.Clone(es), func(e treeEntry) bool { return IsPrivate(e.path, s.private) })
	var writes []treeEntry
	removals := slices.DeleteFunc(slices.Clone(es), func(e treeEntry) bool { return !e.remove })
	slices.SortFunc(removals, func(a, b treeEntry) int { return strings.Compare(b.path, a.path) })
	for _, e := range removals {
		if err := d.RemoveAll(e.path); err != nil {
			return fmt.Errorf("remove %s: %w", e.path, err)
		}
		d.RemoveEmptyParents(e.path)
	}
	for _, e := range es {
		if !e.remove {
			writes = append(writes, e)
		}
	}
	return s.writeBlobs(d, writes)
}

// writeBlobs streams the entries' blobs from one `git cat-file --batch` and writes each.
func (s *Snapshotter) writeBlobs(d *Dir, es []treeEntry) error {
	var blobs []treeEntry
	for _, e := range es {
		if e.mode == "160000" { // a submodule: git leaves an empty folder.
			if err := d.MkdirAll(e.path, 0o755); err != nil {
				return fmt.Errorf("restore %s: %w", e.path, err)
			}
			continue
		}
		blobs = append(blobs, e)
	}
	if len(blobs) == 0 {
		return nil
	}
	cmd := s.git.gitCommand("cat-file", "--batch")
	var in bytes.Buffer
	for _, e := range blobs {
		in.WriteString(e.sha + "\n")
	}
	cmd.Stdin = &in
	var errb bytes.Buffer
	cmd.Stderr = &errb
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	werr := writeBatch(d, bufio.NewReaderSize(pipe, 64<<10), blobs)
	io.Copy(io.Discard, pipe)
	if err := cmd.Wait(); err != nil && werr == nil {
		werr = fmt.Errorf("git cat-file: %w: %s", err, strings.TrimSpace(errb.String()))
	}
	return werr
}

// writeBatch reads one `cat-file --batch` record per entry and puts it in the workspace.
func writeBatch(d *Dir, r *bufio.Reader, es []treeEntry) error {
	for _, e := range es {
		head, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("restore %s: read blob: %w", e.path, err)
		}
		f := strings.Fields(head)
		if len(f) != 3 || f[1] != "blob" {
			return fmt.Errorf("restore %s: blob %s: %q", e.path, e.sha, strings.TrimSpace(head))
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return fmt.Errorf("restore %s: blob size %q", e.path, f[2])
		}
		if err := putEntry(d, e, io.LimitReader(r, size)); err != nil {
			return fmt.Errorf("restore %s: %w", e.path, err)
		}
		if _, err := r.Discard(1); err != nil { // the newline after the content.
			return fmt.Errorf("restore %s: %w", e.path, err)
		}
	}
	return nil
}

// putEntry writes one blob as a file of its mode or a link; a folder in the way is removed.
func putEntry(d *Dir, e treeEntry, content io.Reader) error {
	if fi, err := d.Lstat(e.path); err == nil && fi.IsDir() {
		if err := d.RemoveAll(e.path); err != nil {
			return err
		}
	}
	switch e.mode {
	case "120000":
		target, err := io.ReadAll(io.LimitReader(content, 4096))
		if err != nil {
			return err
		}
		io.Copy(io.Discard, content)
		return d.Symlink(string(target), e.path)
	case "100755":
		return d.ReplaceFile(e.path, content, 0o755)
	default:
		return d.ReplaceFile(e.path, content, fs.FileMode(0o644))
	}
}

// readWorkspaceExclude reads the workspace repository's .git/info/exclude (bounded) without
// following links: the agent could point it at exo's key.
func readWorkspaceExclude(ws string) ([]byte, error) {
	d, err := OpenDir(ws)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadFileLimit(".git/info/exclude", 1<<20)
}
