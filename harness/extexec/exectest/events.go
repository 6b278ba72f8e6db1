package exectest

import (
	"strings"
	"testing"

	"exo/harness"
)

// Events returns session sid's events on its current branch.
func Events(t testing.TB, h *harness.Harness, sid string) []harness.Event {
	t.Helper()
	evs, err := h.Events(sid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// Types lists the events' types, for failure messages.
func Types(evs []harness.Event) string {
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return strings.Join(out, " ")
}

// count is the number of events of type typ.
func count(evs []harness.Event, typ string) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// Payloads decodes the events of type typ (T is that type's payload).
func Payloads[T any](t testing.TB, evs []harness.Event, typ string) []*T {
	t.Helper()
	var out []*T
	for _, e := range evs {
		if e.Type != typ {
			continue
		}
		p, err := harness.Decode(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.(*T))
	}
	return out
}
