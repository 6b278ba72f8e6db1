package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// bbolt's on-disk constants, read here with plain file reads so that a damaged file is judged
// before bbolt maps it (a mapped page past the end of a truncated file is a SIGBUS).
const (
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	pageHeaderSize   = 16 // id u64, flags u16, count u16, overflow u32
	metaSize         = 64 // magic, version, page size, flags, root (root, sequence), freelist, pgid, txid, checksum
	metaSumLen       = 56 // the checksum covers the meta up to itself
	noFreelist       = ^uint64(0)
	branchPageFlag   = 0x01
	leafPageFlag     = 0x02
	metaPageFlag     = 0x04
	freelistPageFlag = 0x10
	bucketLeafFlag   = 0x01
	elementSize      = 16 // branch: pos, ksize, pgid; leaf: flags, pos, ksize, vsize
	inBucketSize     = 16 // root pgid, sequence
	minPageSize      = 512
	maxPageSize      = 1 << 20
)

// ne is bbolt's byte order: it writes its structures in the machine's native order.
var ne = binary.NativeEndian

// boltMeta is one decoded meta page.
type boltMeta struct {
	pageSize uint64
	root     uint64
	freelist uint64
	pgid     uint64 // the high water mark: pages 0..pgid-1 are in use or free
	txid     uint64
}

// readMeta reads and validates the meta page at off: header, magic, version and checksum.
func readMeta(f io.ReaderAt, off int64, id uint64) (boltMeta, error) {
	var b [pageHeaderSize + metaSize]byte
	if n, err := f.ReadAt(b[:], off); err != nil {
		if n >= pageHeaderSize+4 && ne.Uint32(b[pageHeaderSize:]) != boltMagic {
			return boltMeta{}, fmt.Errorf("meta page %d: %w", id, errBadMagic) // a short file, and not bbolt's
		}
		return boltMeta{}, fmt.Errorf("meta page %d: cannot read: %w", id, err)
	}
	m := b[pageHeaderSize:]
	if ne.Uint32(m[0:]) != boltMagic {
		return boltMeta{}, fmt.Errorf("meta page %d: %w", id, errBadMagic)
	}
	if v := ne.Uint32(m[4:]); v != boltVersion {
		return boltMeta{}, fmt.Errorf("meta page %d: bbolt format %d, want %d: %w", id, v, boltVersion, errBadMagic)
	}
	h := fnv.New64a()
	h.Write(m[:metaSumLen])
	if h.Sum64() != ne.Uint64(m[metaSumLen:]) {
		return boltMeta{}, fmt.Errorf("meta page %d: checksum mismatch", id)
	}
	if pid, flags := ne.Uint64(b[0:]), ne.Uint16(b[8:]); pid != id || flags != metaPageFlag {
		return boltMeta{}, fmt.Errorf("meta page %d: header says page %d with flags %#x", id, pid, flags)
	}
	meta := boltMeta{pageSize: uint64(ne.Uint32(m[8:])), root: ne.Uint64(m[16:]), freelist: ne.Uint64(m[32:]),
		pgid: ne.Uint64(m[40:]), txid: ne.Uint64(m[48:])}
	return meta, nil
}

// errBadMagic marks a file that is not bbolt at all (as opposed to a damaged one).
var errBadMagic = errors.New("not a bbolt file")

// checkMetas reads both meta pages and checks them against the file size: both must be intact,
// agree on the page size, and point only at pages inside the file. It returns the newer meta.
func checkMetas(f io.ReaderAt, size int64) (boltMeta, error) {
	m0, err0 := readMeta(f, 0, 0)
	ps := int64(os.Getpagesize())
	if err0 == nil {
		ps = int64(m0.pageSize)
	}
	if ps < minPageSize || ps > maxPageSize || ps&(ps-1) != 0 {
		return boltMeta{}, fmt.Errorf("meta page 0: page size %d is not a power of two", ps)
	}
	if size < 2*ps {
		if errors.Is(err0, errBadMagic) {
			return boltMeta{}, err0 // another kind of file, however short: not a truncated database
		}
		return boltMeta{}, fmt.Errorf("file of %d bytes is shorter than its two %d-byte meta pages (truncated?)", size, ps)
	}
	m1, err1 := readMeta(f, ps, 1)
	switch {
	case errors.Is(err0, errBadMagic) && errors.Is(err1, errBadMagic):
		return boltMeta{}, err0
	case err0 != nil:
		return boltMeta{}, err0
	case err1 != nil:
		return boltMeta{}, err1
	case m1.pageSize != m0.pageSize:
		return boltMeta{}, fmt.Errorf("meta pages disagree on the page size (%d, %d)", m0.pageSize, m1.pageSize)
	}
	if size%ps != 0 {
		return boltMeta{}, fmt.Errorf("file size %d is not a whole number of %d-byte pages (truncated?)", size, ps)
	}
	for i, m := range []boltMeta{m0, m1} {
		if err := m.inside(size); err != nil {
			return boltMeta{}, fmt.Errorf("meta page %d: %w", i, err)
		}
	}
	if m1.txid > m0.txid {
		return m1, nil
	}
	return m0, nil
}

// inside checks that every page a meta refers to lies inside a file of size bytes.
func (m boltMeta) inside(size int64) error {
	pages := uint64(size) / m.pageSize
	switch {
	case m.pgid < 4 || m.pgid > pages:
		return fmt.Errorf("high water mark %d is outside the file's %d pages (truncated?)", m.pgid, pages)
	case m.root < 2 || m.root >= m.pgid:
		return fmt.Errorf("root page %d is outside pages 2..%d", m.root, m.pgid-1)
	case m.freelist != noFreelist && (m.freelist < 2 || m.freelist >= m.pgid):
		return fmt.Errorf("freelist page %d is outside pages 2..%d", m.freelist, m.pgid-1)
	}
	return nil
}
