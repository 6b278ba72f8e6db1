package store

// arena holds the payloads of a page of decoded events, reused page after page (ScanRange):
// reading a long history then allocates nothing per event, where each payload had its own
// allocation and the collector's time to free it.
type arena struct {
	// b is the current block; its length is what is taken of it.
	b []byte
	// n counts the bytes taken since the last reset.
	n int
	// names holds the type and actor names outside the vocabulary met so far (strings, which
	// events keep), at most arenaNames of them.
	names map[string]string
}

const (
	// arenaBlock is the size of a new block (a payload larger than it gets a block of its own).
	arenaBlock = 64 << 10
	// arenaKeep is the largest block reset keeps for the next page.
	arenaKeep = 4 << 20
	// arenaNames bounds the names an arena holds.
	arenaNames = 256
)

// name returns b as a string, the same string for the same name.
func (a *arena) name(b []byte) string {
	if s, ok := a.names[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(a.names) < arenaNames {
		if a.names == nil {
			a.names = map[string]string{}
		}
		a.names[s] = s
	}
	return s
}

// room returns room for n bytes at the end of the current block (length 0, capacity n),
// starting a new block when it has less. The events of earlier blocks keep theirs.
func (a *arena) room(n int) []byte {
	if cap(a.b)-len(a.b) < n {
		a.b = make([]byte, 0, max(n, arenaBlock))
	}
	return a.b[len(a.b) : len(a.b) : len(a.b)+n]
}

// used takes out, which was written into the room room gave (or elsewhere, when what wrote it
// needed more: then the block is left as it is).
func (a *arena) used(out []byte) {
	a.n += len(out)
	if l := len(a.b); len(out) > 0 && cap(a.b)-l >= len(out) && &a.b[:l+1][l] == &out[0] {
		a.b = a.b[:l+len(out)]
	}
}

// add copies p into the arena and returns the copy (nil for an empty p, as a payload copied
// on its own is).
func (a *arena) add(p []byte) []byte {
	if len(p) == 0 {
		return nil
	}
	out := append(a.room(len(p)), p...)
	a.used(out)
	return out
}

// reset makes the arena's memory the next page's: the events of the last one must no longer
// be used. A page that took several blocks leaves one block as large as them all, for the next.
func (a *arena) reset() {
	switch {
	case a.n > cap(a.b) && a.n <= arenaKeep:
		a.b = make([]byte, 0, a.n+a.n/4)
	case cap(a.b) > arenaKeep:
		a.b = nil
	}
	a.b, a.n = a.b[:0], 0
}
