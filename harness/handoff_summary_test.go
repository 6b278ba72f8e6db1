package harness

import (
	"strings"
	"testing"

	"exo/store"
)

// TestHandoffSummaryNamesSessions: the app, the timeline and exo log say "handoff proj-3 →
// proj-newer", not the two sessions' ids; a record without names still says the ids.
func TestHandoffSummaryNamesSessions(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{`{"from":"6b076bf50b94a39d","to":"6b07770df2deb606","note":"continue","from_name":"proj-3","to_name":"proj-newer","summary":"s"}`, "handoff proj-3 → proj-newer: continue"},
		{`{"from":"6b076bf50b94a39d","to":"6b07770df2deb606","note":"continue"}`, "handoff 6b076bf50b94a39d → 6b07770df2deb606: continue"},
	} {
		got := Summary(store.Event{Type: TypeHandoffRecorded, Actor: ActorHarness, Data: []byte(c.data)})
		if !strings.Contains(got, c.want) {
			t.Fatalf("summary %q, want %q", got, c.want)
		}
	}
}
