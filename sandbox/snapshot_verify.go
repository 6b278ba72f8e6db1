package sandbox

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// maxPathspecs bounds how many paths verifyStaged names to ls-files (else it lists all).
const maxPathspecs = 200

// verifyStaged checks what git just staged against the workspace read by exo itself, beneath
// it and without following links. git, running unconfined on the host, reads a path's leading
// folders following links, so a folder swapped for a link at the instant git hashed a file could
// put a file outside (exo's key, say) into the snapshot, and a later restore into the workspace.
// A staged blob that differs from exo's own reading is replaced by it, and a path exo cannot
// reach without a link is dropped from the snapshot.
func (s *Snapshotter) verifyStaged(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	staged, err := s.stagedEntries(paths)
	if err != nil {
		return err
	}
	d, err := OpenDir(s.git.workTree)
	if err != nil {
		return err
	}
	defer d.Close()
	var fix bytes.Buffer
	for _, p := range paths {
		e, ok := staged[p]
		if !ok {
			continue // removed from the index: nothing read.
		}
		line, err := s.checkEntry(d, p, e)
		if err != nil {
			return err
		}
		fix.WriteString(line)
	}
	if fix.Len() == 0 {
		return nil
	}
	_, err = s.git.run(&fix, "update-index", "-z", "--index-info")
	return err
}

// stagedEntry is a path's mode and object id in the shadow index.
type stagedEntry struct{ mode, sha string }

// stagedEntries reads the index entries of paths.
func (s *Snapshotter) stagedEntries(paths []string) (map[string]stagedEntry, error) {
	args := []string{"ls-files", "-s", "-z", "--full-name"}
	if len(paths) <= maxPathspecs {
		args = append(args, "--")
		for _, p := range paths {
			args = append(args, ":(literal)"+p)
		}
	}
	out, err := s.git.run(nil, args...)
	if err != nil {
		return nil, err
	}
	m := map[string]stagedEntry{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		if f := strings.Fields(string(meta)); ok && len(f) == 3 {
			m[string(path)] = stagedEntry{mode: f[0], sha: f[1]}
		}
	}
	return m, nil
}

// checkEntry returns the --index-info line that corrects p (empty when git read what exo reads).
func (s *Snapshotter) checkEntry(d *Dir, p string, e stagedEntry) (string, error) {
	drop := "0 " + strings.Repeat("0", 40) + "\t" + p + "\x00"
	id, mode, err := entryID(d, p)
	switch {
	case errors.Is(err, ErrUnsafePath) || errors.Is(err, fs.ErrNotExist):
		return drop, nil
	case err != nil || mode == "" || e.mode == "160000":
		return "", nil // unreadable, or not a file git stores: git's entry stands.
	case id == e.sha && mode == e.mode:
		return "", nil
	}
	r, err := blobContent(d, p, mode)
	if err != nil {
		return drop, nil
	}
	defer r.Close()
	out, err := s.git.run(r, "hash-object", "-w", "--stdin")
	if err != nil {
		return "", err
	}
	return mode + " " + strings.TrimSpace(string(out)) + "\t" + p + "\x00", nil
}

// entryID returns p's git object id and mode as exo reads it beneath the workspace (a link's
// target, not followed); mode is "" for what git does not store here (a folder, a device).
func entryID(d *Dir, p string) (id, mode string, err error) {
	fi, err := d.Lstat(p)
	if err != nil {
		return "", "", err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := d.Readlink(p)
		if err != nil {
			return "", "", err
		}
		id, err := blobID(strings.NewReader(t), int64(len(t)))
		return id, "120000", err
	case !fi.Mode().IsRegular():
		return "", "", nil
	}
	f, err := d.Open(p)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return "", "", err
	}
	mode = "100644"
	if st.Mode()&0o100 != 0 {
		mode = "100755"
	}
	id, err = blobID(f, st.Size())
	return id, mode, err
}

// blobContent opens what git stores for p: a file's content or a link's target.
func blobContent(d *Dir, p, mode string) (io.ReadCloser, error) {
	if mode == "120000" {
		t, err := d.Readlink(p)
		return io.NopCloser(strings.NewReader(t)), err
	}
	return d.Open(p)
}

// blobID is git's object id of a blob of size bytes read from r ("" if r ends early: the file
// changed meanwhile, and the caller stores what it reads next).
func blobID(r io.Reader, size int64) (string, error) {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", size)
	n, err := io.Copy(h, io.LimitReader(r, size))
	if err != nil || n != size {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
