package store

import (
	"bytes"
	"fmt"
)

// maxTreeDepth bounds the b-tree recursion so a page cycle cannot recurse forever.
const maxTreeDepth = 64

// maxProblems bounds how many structural problems a check collects.
const maxProblems = 20

// pageWalker checks the page structure of a bbolt file with plain, bounds-checked reads: every
// page reachable from the root lies below the high water mark and is referenced once, b-tree
// pages have a valid type, elements inside their page and keys in order, the freelist names
// pages in range, and every page is either reachable or free. It is what bbolt's own Check
// does, but every offset is bounds-checked: a damaged page is a problem reported, never a
// pointer followed.
type pageWalker struct {
	data     []byte // the whole file
	m        boltMeta
	used     []uint64 // bitset of reachable pages
	free     []uint64 // bitset of free pages
	problems []string
}

// checkPages walks the file's bytes from meta m and returns its problems (nil when sound).
func checkPages(data []byte, m boltMeta) []string {
	w := &pageWalker{data: data, m: m, used: make([]uint64, (m.pgid+63)/64), free: make([]uint64, (m.pgid+63)/64)}
	w.mark(0, 0, "meta")
	w.mark(1, 0, "meta")
	w.readFreelist()
	w.tree(m.root, nil, nil, 0)
	for id := uint64(2); id < m.pgid && len(w.problems) < maxProblems; id++ {
		u, fr := bit(w.used, id), bit(w.free, id)
		switch {
		case u && fr:
			w.addf("page %d is both in use and free", id)
		case !u && !fr:
			w.addf("page %d is neither reachable nor free", id)
		}
	}
	return w.problems
}

// bit reports whether id is set in a bitset.
func bit(set []uint64, id uint64) bool { return set[id/64]&(1<<(id%64)) != 0 }

// addf records a problem, up to maxProblems.
func (w *pageWalker) addf(format string, args ...any) {
	if len(w.problems) < maxProblems {
		w.problems = append(w.problems, fmt.Sprintf(format, args...))
	}
}

// mark records pages id..id+overflow as used; false if any is out of range or seen before.
func (w *pageWalker) mark(id, overflow uint64, what string) bool {
	if id >= w.m.pgid || overflow >= w.m.pgid-id {
		w.addf("%s page %d (+%d overflow) is past the high water mark %d", what, id, overflow, w.m.pgid)
		return false
	}
	for p := id; p <= id+overflow; p++ {
		if bit(w.used, p) {
			w.addf("page %d is referenced twice", p)
			return false
		}
		w.used[p/64] |= 1 << (p % 64)
	}
	return true
}

// page returns page id with its overflow pages; nil when it cannot be read sanely.
func (w *pageWalker) page(id uint64, what string) []byte {
	ps := w.m.pageSize
	if id >= w.m.pgid || (id+1)*ps > uint64(len(w.data)) {
		w.addf("%s page %d is past the high water mark %d", what, id, w.m.pgid)
		return nil
	}
	hdr := w.data[id*ps:]
	if got := ne.Uint64(hdr); got != id {
		w.addf("%s page %d says it is page %d", what, id, got)
		return nil
	}
	overflow := uint64(ne.Uint32(hdr[12:]))
	if !w.mark(id, overflow, what) || (id+1+overflow)*ps > uint64(len(w.data)) {
		return nil
	}
	return w.data[id*ps : (id+1+overflow)*ps : (id+1+overflow)*ps]
}

// readFreelist marks the pages the freelist names as free.
func (w *pageWalker) readFreelist() {
	if w.m.freelist == noFreelist {
		return
	}
	p := w.page(w.m.freelist, "freelist")
	if p == nil {
		return
	}
	if flags := ne.Uint16(p[8:]); flags != freelistPageFlag {
		w.addf("freelist page %d has flags %#x", w.m.freelist, flags)
		return
	}
	start, count := uint64(pageHeaderSize), uint64(ne.Uint16(p[10:]))
	if count == 0xFFFF && len(p) >= pageHeaderSize+8 {
		count, start = ne.Uint64(p[pageHeaderSize:]), pageHeaderSize+8
	}
	if count > (uint64(len(p))-start)/8 {
		w.addf("freelist page %d claims %d entries, more than it holds", w.m.freelist, count)
		return
	}
	for i := uint64(0); i < count; i++ {
		id := ne.Uint64(p[start+8*i:])
		switch {
		case id < 2 || id >= w.m.pgid:
			w.addf("freelist names page %d, outside 2..%d", id, w.m.pgid-1)
			return
		case bit(w.free, id):
			w.addf("freelist names page %d twice", id)
			return
		}
		w.free[id/64] |= 1 << (id % 64)
	}
}

// tree checks the b-tree rooted at page id, whose keys must lie in [lo, hi) (nil: unbounded).
// It returns the subtree's first key.
func (w *pageWalker) tree(id uint64, lo, hi []byte, depth int) []byte {
	if depth > maxTreeDepth {
		w.addf("b-tree deeper than %d pages at page %d", maxTreeDepth, id)
		return nil
	}
	p := w.page(id, "b-tree")
	if p == nil {
		return nil
	}
	return w.node(id, p, lo, hi, depth)
}

// node checks one branch or leaf page (p is its bytes; id 0 for an inline bucket's page).
func (w *pageWalker) node(id uint64, p []byte, lo, hi []byte, depth int) []byte {
	flags, count := ne.Uint16(p[8:]), int(ne.Uint16(p[10:]))
	if flags != branchPageFlag && flags != leafPageFlag {
		w.addf("page %d has invalid type %#x", id, flags)
		return nil
	}
	if pageHeaderSize+count*elementSize > len(p) {
		w.addf("page %d claims %d elements, more than it holds", id, count)
		return nil
	}
	var first, prev []byte
	for i := 0; i < count && len(w.problems) < maxProblems; i++ {
		key, val, ok := w.element(id, p, i, flags == leafPageFlag)
		if !ok {
			return first
		}
		if i == 0 {
			first = key
		}
		if (prev != nil && bytes.Compare(prev, key) >= 0) || (lo != nil && bytes.Compare(key, lo) < 0) || (hi != nil && bytes.Compare(key, hi) >= 0) {
			w.addf("page %d: key %d is out of order", id, i)
			return first
		}
		prev = key
		if flags == branchPageFlag {
			w.child(p, i, count, key, hi, depth)
		} else if ne.Uint32(p[pageHeaderSize+i*elementSize:]) == bucketLeafFlag {
			w.bucket(id, i, val, depth)
		}
	}
	return first
}

// child checks the subtree of branch element i, bounded by its key and the next one.
func (w *pageWalker) child(p []byte, i, count int, key, hi []byte, depth int) {
	next := hi
	if i+1 < count {
		if k, _, ok := w.element(0, p, i+1, false); ok {
			next = k
		}
	}
	w.tree(ne.Uint64(p[pageHeaderSize+i*elementSize+8:]), key, next, depth+1)
}

// element returns element i's key (and value, for a leaf), checked to lie inside p.
func (w *pageWalker) element(id uint64, p []byte, i int, leaf bool) (key, val []byte, ok bool) {
	off := pageHeaderSize + i*elementSize
	e := p[off : off+elementSize]
	var pos, ksize, vsize uint64
	if leaf {
		pos, ksize, vsize = uint64(ne.Uint32(e[4:])), uint64(ne.Uint32(e[8:])), uint64(ne.Uint32(e[12:]))
	} else {
		pos, ksize = uint64(ne.Uint32(e[0:])), uint64(ne.Uint32(e[4:]))
	}
	start := uint64(off) + pos
	if ksize == 0 || start+ksize+vsize > uint64(len(p)) {
		w.addf("page %d: element %d lies outside the page", id, i)
		return nil, nil, false
	}
	return p[start : start+ksize], p[start+ksize : start+ksize+vsize], true
}

// bucket checks a nested bucket stored as leaf element i's value: its own tree or inline page.
func (w *pageWalker) bucket(id uint64, i int, val []byte, depth int) {
	if len(val) < inBucketSize {
		w.addf("page %d: bucket entry %d is %d bytes", id, i, len(val))
		return
	}
	if root := ne.Uint64(val); root != 0 {
		w.tree(root, nil, nil, depth+1)
		return
	}
	inline := val[inBucketSize:]
	if len(inline) < pageHeaderSize {
		w.addf("page %d: inline bucket %d is truncated", id, i)
		return
	}
	if depth > maxTreeDepth {
		w.addf("buckets nested deeper than %d at page %d", maxTreeDepth, id)
		return
	}
	w.node(0, inline, nil, nil, depth+1)
}
