package mcpserve

import (
	"encoding/json"
	"strings"
	"testing"

	"exo/harness"
)

// headTail keeps the head and the tail of a long output and says how much it left out.
func TestHeadTail(t *testing.T) {
	w := &headTail{max: 20}
	for _, s := range []string{"0123456", "789abcdefghij", "klmnopqrstuvwxyz"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	got := w.String()
	if !strings.HasPrefix(got, "0123456789") || !strings.HasSuffix(got, "qrstuvwxyz") || !strings.Contains(got, "(16 bytes left out)") {
		t.Fatalf("%q", got)
	}
	short := &headTail{max: 20}
	short.Write([]byte("hello"))
	if short.String() != "hello" {
		t.Fatalf("%q", short.String())
	}
}

// logRange reads the last events by default, pages by from/to and bounds the page.
func TestLogRange(t *testing.T) {
	for _, c := range []struct {
		in       logIn
		head     uint64
		from, to uint64
		err      bool
	}{
		{logIn{}, 10, 1, 10, false},
		{logIn{}, 100, 41, 100, false},
		{logIn{Limit: 5}, 100, 96, 100, false},
		{logIn{From: 3, To: 7}, 100, 3, 7, false},
		{logIn{From: 3}, 1000, 3, 62, false},
		{logIn{To: 20, Limit: 5}, 100, 16, 20, false},
		{logIn{Limit: 100000}, 1000, 501, 1000, false},
		{logIn{From: 9, To: 4}, 100, 0, 0, true},
		{logIn{}, 0, 0, 0, true},
	} {
		from, to, err := logRange(c.in, c.head)
		if (err != nil) != c.err || from != c.from || to != c.to {
			t.Errorf("logRange(%+v, %d) = %d, %d, %v", c.in, c.head, from, to, err)
		}
	}
}

// collect pairs approvals with their answers, from the last prompt on when asked.
func TestCollectApprovals(t *testing.T) {
	ev := func(typ, actor, data string) harness.Event {
		return harness.Event{Type: typ, Actor: actor, Data: json.RawMessage(data)}
	}
	evs := []harness.Event{
		ev(harness.TypeInvocationReceived, "user", `{"text":"first"}`),
		ev(harness.TypeApprovalRequested, "executor:default", `{"call_id":"a","tool":"bash"}`),
		ev(harness.TypeApprovalResolved, "user", `{"call_id":"a","decision":"once"}`),
		ev(harness.TypeInvocationReceived, "user", `{"text":"second"}`),
		ev(harness.TypeApprovalRequested, "executor:default", `{"call_id":"b","tool":"write_file","summary":"x.go"}`),
		ev(harness.TypeApprovalResolved, "harness", `{"call_id":"b","decision":"deny"}`),
		ev(harness.TypeApprovalRequested, "executor:default", `{"call_id":"c","tool":"bash"}`),
	}
	last := collect(evs, true)
	if len(last) != 2 || last[0] != (approval{Tool: "write_file", Summary: "x.go", Decision: "deny", By: "harness"}) || last[1].Decision != "pending" {
		t.Fatalf("last turn: %+v", last)
	}
	if !refused(last) {
		t.Fatal("a harness deny is a refusal")
	}
	all := collect(evs, false)
	if len(all) != 3 || all[0].By != "user" || refused(all[:1]) {
		t.Fatalf("all: %+v", all)
	}
}
