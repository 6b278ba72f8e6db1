package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// damagedBase is a real store file and its contents as read back, built once per fuzz run.
var damagedBase struct {
	once   sync.Once
	file   []byte
	events map[string][]Event
	err    error
}

// baseStore returns the bytes of a real store and every branch's events.
func baseStore(t testing.TB) ([]byte, map[string][]Event) {
	damagedBase.once.Do(func() {
		home, path := buildStore(t)
		damagedBase.file, damagedBase.err = os.ReadFile(path)
		damagedBase.events, _ = readAllEvents(home)
	})
	if damagedBase.err != nil || damagedBase.events == nil {
		t.Fatalf("base store: %v", damagedBase.err)
	}
	return damagedBase.file, damagedBase.events
}

// readAllEvents opens home and reads every branch's whole history.
func readAllEvents(home string) (map[string][]Event, error) {
	s, err := Open(home, Options{})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.allEvents()
}

// allEvents reads every branch's whole history.
func (s *Store) allEvents() (map[string][]Event, error) {
	return s.histories(func(id string) ([]Event, error) { return s.ReadRange(id, 0, 0) })
}

// histories reads every branch's whole history with read.
func (s *Store) histories(read func(branch string) ([]Event, error)) (map[string][]Event, error) {
	brs, err := s.Branches()
	if err != nil {
		return nil, err
	}
	out := map[string][]Event{}
	for _, b := range brs {
		if out[b.ID], err = read(b.ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// scanAllEvents reads every branch's whole history a page at a time, as log --json does.
func (s *Store) scanAllEvents() (map[string][]Event, error) {
	return s.histories(func(id string) (evs []Event, err error) {
		err = s.ScanRange(id, 0, 0, func(page []Event) error {
			for _, e := range page {
				e.Data = append(json.RawMessage(nil), e.Data...)
				evs = append(evs, e)
			}
			return nil
		})
		return evs, err
	})
}

// damage applies one fuzzed change to a copy of b: truncate, zero a range, flip a byte, zero a
// page or copy a page over another.
func damage(b []byte, kind uint8, off uint32, n uint16, val uint8) []byte {
	b = append([]byte(nil), b...)
	size := uint32(len(b))
	o := off % size
	switch kind % 5 {
	case 0:
		return b[:o]
	case 1:
		clear(b[o:min(size, o+uint32(n))])
	case 2:
		b[o] ^= max(val, 1)
	case 3:
		p := (o / 4096) * 4096
		clear(b[p:min(size, p+4096)])
	case 4:
		src, dst := (o/4096)*4096, (uint32(n)*4096)%size
		copy(b[dst:min(size, dst+4096)], b[src:min(size, src+4096)])
	}
	return b
}

// FuzzOpenDamaged damages a real store file and opens it: exo must never crash (no panic, no
// SIGBUS), and whatever it does not refuse or report must read back exactly as it was stored.
func FuzzOpenDamaged(f *testing.F) {
	for _, seed := range []struct {
		kind uint8
		off  uint32
		n    uint16
		val  uint8
	}{
		{0, 0, 0, 0}, {0, 4095, 0, 0}, {0, 8192, 0, 0}, {0, 20000, 0, 0}, {0, 40961, 0, 0},
		{1, 16, 64, 0}, {1, 4096 + 16, 64, 0}, {1, 3 * 4096, 4096, 0}, {1, 9*4096 + 100, 300, 0},
		{2, 16 + 40, 0, 1}, {2, 4096 + 16 + 16, 0, 0x80}, {2, 5*4096 + 20, 0, 0xff}, {2, 7*4096 + 3000, 0, 4},
		{3, 2 * 4096, 0, 0}, {3, 3 * 4096, 0, 0}, {3, 6 * 4096, 0, 0}, {3, 11 * 4096, 0, 0},
		{4, 4 * 4096, 5, 0}, {4, 0, 1, 0}, {4, 8 * 4096, 2, 0},
	} {
		f.Add(seed.kind, seed.off, seed.n, seed.val)
	}
	f.Fuzz(func(t *testing.T, kind uint8, off uint32, n uint16, val uint8) {
		orig, want := baseStore(t)
		b := damage(orig, kind, off, n, val)
		home := t.TempDir()
		path := filepath.Join(home, DBName)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		os.Mkdir(filepath.Join(home, "shadow"), 0o700) // the home was in use: an empty file is a loss
		s, err := Open(home, Options{Evidence: []string{"shadow"}})
		if err != nil {
			// A damaged schema number a newer exo could have written is refused as newer, with
			// both ways out named: nothing tells the two apart.
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrForeign) && !errors.Is(err, ErrNewerSchema) {
				t.Fatalf("refused without saying it is damaged: %v", err)
			}
			return
		}
		defer s.Close()
		if s.Damaged() != nil {
			return
		}
		got, rerr := s.allEvents()
		rep, verr := s.VerifyAll()
		if rerr != nil || verr != nil || !rep.OK() {
			if s.Damaged() == nil && (rerr != nil || !rep.OK()) {
				t.Fatalf("damage found but writes are not refused: %v %v %+v", rerr, verr, rep)
			}
			return
		}
		// The paged read (log --json) must read the same, or report the damage.
		if scanned, err := s.scanAllEvents(); err != nil {
			if !errors.Is(err, ErrCorrupt) || s.Damaged() == nil {
				t.Fatalf("the paged read failed where the whole read did not, without marking damage: %v", err)
			}
			return
		} else if !sameEvents(scanned, got) {
			t.Fatalf("the paged read differs from the whole read (kind %d at %d): %s",
				kind%5, off%uint32(len(orig)), firstDifference(scanned, got))
		}
		if !sameEvents(got, want) {
			brs, _ := s.Branches()
			t.Fatalf("damage went unnoticed: what reads back differs from what was stored (kind %d at %d): %s; branches now %+v",
				kind%5, off%uint32(len(orig)), firstDifference(got, want), brs)
		}
	})
}

// firstDifference describes where two sets of branch histories first differ.
func firstDifference(got, want map[string][]Event) string {
	for id, ew := range want {
		eg := got[id]
		for i := range min(len(eg), len(ew)) {
			x, y := eg[i], ew[i]
			if x.Hash != y.Hash || x.Seq != y.Seq || x.Branch != y.Branch || !bytes.Equal(encodeEvent(&x), encodeEvent(&y)) {
				return fmt.Sprintf("%s@%d reads %+v, was %+v", id, y.Seq, x, y)
			}
		}
		if len(eg) != len(ew) {
			return fmt.Sprintf("%s has %d events, had %d", id, len(eg), len(ew))
		}
	}
	return fmt.Sprintf("%d branches, had %d", len(got), len(want))
}

// sameEvents reports whether two sets of branch histories are identical.
func sameEvents(a, b map[string][]Event) bool {
	if len(a) != len(b) {
		return false
	}
	for id, ea := range a {
		eb := b[id]
		if len(ea) != len(eb) {
			return false
		}
		for i := range ea {
			x, y := ea[i], eb[i]
			if x.Hash != y.Hash || x.Seq != y.Seq || x.Branch != y.Branch || !bytes.Equal(encodeEvent(&x), encodeEvent(&y)) {
				return false
			}
		}
	}
	return true
}
