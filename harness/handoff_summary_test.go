package harness

import (
	"strings"
	"testing"
)

// TestHandoffSummaryNamesSessions: the app, the timeline and exo log say "handoff proj-3 →
// proj-newer", not the two sessions' ids; a record without names still says the ids.
func TestHandoffSummaryNamesSessions(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{`{"from":"6b076bf50b94a39d","to":"6b07770df2deb606","note":"continue","from_name":"proj-3","to_name":"proj-newer","summary":"s"}`, "handoff proj-3 → proj-newer: continue"},
		{`{"from":"6b076bf50b94a39d","to":"6b07770df2deb606","note":"continue"}`, "handoff 6b076bf50b94a39d → 6b07770df2deb606: continue"},
	} {
		got := Summary(Event{Type: TypeHandoffRecorded, Actor: ActorHarness, Data: []byte(c.data)})
		if !strings.Contains(got, c.want) {
			t.Fatalf("summary %q, want %q", got, c.want)
		}
	}
}

// TestRewoundSummaryNamesNoBranchID: a rewind says which events it set aside, not the old
// branch's id.
func TestRewoundSummaryNamesNoBranchID(t *testing.T) {
	got := Summary(Event{Type: TypeSessionRewound, Actor: ActorHarness, Data: []byte(`{"from_branch":"6b076ae984931e0e","abandoned_head":9,"to_seq":4}`)})
	if got != "rewound to @4 (@5..9 kept on an abandoned branch)" {
		t.Fatalf("summary %q", got)
	}
}
