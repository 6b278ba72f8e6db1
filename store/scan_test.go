package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestScanRangeMatchesReadRange reads a forked branch's history (its parent's events, then its
// own) with ScanRange and with ReadRange over several ranges: the same events, pages bounded in
// events and in payload bytes, few allocations, fn's error returned as is.
// Not parallel: it counts allocations.
func TestScanRangeMatchesReadRange(t *testing.T) {
	s := openTest(t, Options{NoSync: true})
	if _, err := s.NewBranch("main"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "main", 3000, 500)
	// Large events (about 300 KiB of payloads each batch) end pages by bytes.
	for i := range 8 {
		big := Record{Type: "test.big", Actor: "tool:bash", Data: json.RawMessage(fmt.Sprintf(`{"output":%q}`, strings.Repeat(fmt.Sprintf("line %d of a long tool output\n", i), 10000)))}
		if _, err := s.Append("main", big, rec(i), Record{Type: "test.empty", Actor: "user"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Fork("side", "main", 3020); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "side", 2500, 700)
	for _, r := range []struct{ from, to uint64 }{{0, 0}, {1, 0}, {2048, 2049}, {2899, 2902}, {100, 5000}, {5400, 0}, {5401, 0}, {6000, 0}} {
		want, err := s.ReadRange("side", r.from, r.to)
		if err != nil {
			t.Fatal(err)
		}
		var got []Event
		pages := 0
		err = s.ScanRange("side", r.from, r.to, func(evs []Event) error {
			pages++
			if len(evs) == 0 || len(evs) > scanPage {
				t.Fatalf("range %v: a page of %d events", r, len(evs))
			}
			var n int
			for _, e := range evs[:len(evs)-1] {
				n += len(e.Data)
			}
			if n >= scanBytes {
				t.Fatalf("range %v: a page of %d bytes before its last event", r, n)
			}
			for _, e := range evs {
				e.Data = append(json.RawMessage(nil), e.Data...)
				got = append(got, e)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("range %v: %v", r, err)
		}
		if len(got) != len(want) {
			t.Fatalf("range %v: %d events, want %d", r, len(got), len(want))
		}
		for i := range want {
			if !sameEvent(got[i], want[i]) || (got[i].Data == nil) != (want[i].Data == nil) {
				t.Fatalf("range %v: event %d is %+v, want %+v", r, i, got[i], want[i])
			}
		}
		if r.from == 0 && r.to == 0 {
			if pages < 4 || got[0].Branch != "main" || got[len(got)-1].Branch != "side" {
				t.Fatalf("whole history: %d pages, branches %s..%s", pages, got[0].Branch, got[len(got)-1].Branch)
			}
		}
	}
	// The pages' memory is reused: far fewer allocations than events.
	allocs := testing.AllocsPerRun(3, func() {
		if err := s.ScanRange("side", 1, 0, func([]Event) error { return nil }); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 5520/10 {
		t.Fatalf("%.0f allocations to scan 5520 events", allocs)
	}
	stop := errors.New("stop")
	calls := 0
	if err := s.ScanRange("side", 1, 0, func([]Event) error { calls++; return stop }); err != stop || calls != 1 {
		t.Fatalf("fn's error: %v after %d calls", err, calls)
	}
	if err := s.ScanRange("nope", 1, 0, func([]Event) error { return nil }); err == nil {
		t.Fatal("an unknown branch scanned")
	}
}
