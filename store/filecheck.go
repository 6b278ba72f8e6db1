package store

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"golang.org/x/sys/unix"
)

// DeepCheckLimit is the largest database whose every page Open checks before mapping it
// (a 64 MiB file takes tens of milliseconds); larger ones get the meta checks at open and the
// page walk from `exo verify`.
const DeepCheckLimit = 64 << 20

// wayOut is appended to every damage error: what the user can do.
const wayOut = "run `exo doctor` for details; restore exo.db from a backup (`exo backup` makes one) or move it aside"

// checkFile judges a database file with plain reads before bbolt maps it: both meta pages
// intact, the size a whole number of pages that holds every page the metas refer to, and (when
// deep) every page's structure. A file that is not bbolt at all is ErrForeign; damage is ErrCorrupt.
func checkFile(path string, deep bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	return checkOpen(f, path, deep)
}

// checkOpen is checkFile of a file already open for reading, named path in errors.
func checkOpen(f *os.File, path string, deep bool) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	m, err := checkMetas(f, fi.Size())
	if errors.Is(err, errBadMagic) && !looksDamagedBolt(f) {
		return fmt.Errorf("open %s: %v: %w (move it aside or set EXO_HOME elsewhere)", path, err, ErrForeign)
	}
	if err != nil {
		return fmt.Errorf("open %s: %v: %w (%s)", path, err, ErrCorrupt, wayOut)
	}
	if !deep {
		return nil
	}
	if problems := mappedPages(f, fi.Size(), m); len(problems) > 0 {
		return fmt.Errorf("open %s: damaged pages: %s: %w (%s)", path, strings.Join(problems, "; "), ErrCorrupt, wayOut)
	}
	return nil
}

// mappedPages walks the pages of f through a read-only mapping of its size bytes (checked
// against the metas already). A fault, should the file shrink meanwhile, becomes a problem.
func mappedPages(f *os.File, size int64, m boltMeta) (problems []string) {
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return []string{fmt.Sprintf("map the file to check it: %v", err)}
	}
	defer unix.Munmap(data)
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			problems = append(problems, fmt.Sprintf("reading the file faulted: %v", r))
		}
	}()
	return checkPages(data, m)
}

// looksDamagedBolt reports whether either meta slot still carries bbolt's magic, so that a file
// with one good-looking meta is called damaged, not foreign.
func looksDamagedBolt(f *os.File) bool {
	var b [pageHeaderSize + 4]byte
	for _, off := range []int64{0, int64(os.Getpagesize())} {
		if _, err := f.ReadAt(b[:], off); err == nil && ne.Uint32(b[pageHeaderSize:]) == boltMagic {
			return true
		}
	}
	return false
}
