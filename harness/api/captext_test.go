package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLongToolOutputKeepsItsTail projects a tool result far over the per-item cap: the item
// keeps the head and the tail (the last line, LAST, included), cut on line boundaries, and says
// how much is left out.
func TestLongToolOutputKeepsItsTail(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	b.WriteString("LAST\n")
	st := &SessionState{}
	exit := 0
	st.Apply(mustEvent(t, 1, TypeToolStarted, ToolStarted{CallID: "c", Tool: "bash", Summary: "seq"}))
	st.Apply(mustEvent(t, 2, TypeToolCompleted, ToolCompleted{CallID: "c", Tool: "bash", Output: b.String(), ExitCode: &exit}))
	out := st.Items[len(st.Items)-1].Output
	if !strings.HasPrefix(out, "1\n2\n3\n") || !strings.HasSuffix(out, "4999\n5000\nLAST\n") {
		t.Fatalf("head or tail lost: %q … %q", out[:20], out[len(out)-30:])
	}
	if len(out) > itemTextCap+100 || !strings.Contains(out, "bytes left out here") {
		t.Fatalf("%d bytes kept, marker present %v", len(out), strings.Contains(out, "left out"))
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l != "LAST" && !strings.HasPrefix(l, "… ") {
			if _, err := fmt.Sscanf(l, "%d", new(int)); err != nil {
				t.Fatalf("a line was cut: %q", l)
			}
		}
	}
	wide := strings.Repeat("é", itemTextCap)
	if got := capText(wide); !utf8.ValidString(got) {
		t.Fatal("cut inside a rune")
	}
}

// mustEvent makes a committed-looking event of a payload for projection tests.
func mustEvent(t *testing.T, seq uint64, typ string, payload any) Event {
	t.Helper()
	data, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	return Event{Branch: "b", Seq: seq, Type: typ, Actor: ActorHarness, Data: data}
}
