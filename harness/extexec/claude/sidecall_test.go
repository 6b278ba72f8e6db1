package claude

import (
	"context"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/extexec/exectest"
)

// Claude Code's /compact asks the model for a summary of the conversation (the same system
// prompt and tools, the summary instruction after the last tool results): exo records it as
// model.side, counted in usage and cost, never as an answer; the next turn and the prompt view
// of any later executor hold the conversation without it.
func TestCompactionIsASideCall(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{})
	res, err := x.Prompt(context.Background(), f.s.ID, "make a file", "test")
	okResult(t, res, err)
	res, err = x.Prompt(context.Background(), f.s.ID, "/compact", "test")
	okResult(t, res, err)
	if res.Steps != 0 || res.Cost == 0 {
		t.Fatalf("the /compact turn: %+v", res)
	}
	res, err = x.Prompt(context.Background(), f.s.ID, "say hello", "test")
	okResult(t, res, err)
	if res.Steps != 1 || res.Response != "Hello from the scripted model." {
		t.Fatalf("the turn after /compact: %+v", res)
	}
	evs := f.events(t, f.s.ID)
	side := exectest.Payloads[harness.ModelSide](t, evs, harness.TypeModelSide)
	if len(side) == 0 {
		t.Fatalf("no model.side: %s", exectest.Types(evs))
	}
	for _, s := range side {
		if s.Purpose != harness.SideCompaction || !strings.Contains(s.Text, "<summary>") || s.Cost == 0 {
			t.Fatalf("model.side %+v", s)
		}
	}
	for _, c := range exectest.Payloads[harness.ModelCompleted](t, evs, harness.TypeModelCompleted) {
		if strings.Contains(c.Text, "summary") {
			t.Fatalf("the summary was recorded as an answer: %+v", c)
		}
	}
	st, _ := f.h.State(f.s.ID)
	if st.ModelCalls != 3 || st.SideCalls != len(side) {
		t.Fatalf("state %+v", st)
	}
	v, err := x.Executor().ViewOf(f.s.Branch, "claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range v.Messages {
		texts = append(texts, m.Text)
	}
	if all := strings.Join(texts, "|"); strings.Contains(all, "<summary>") || !strings.Contains(all, "Done: x.txt holds hi.") {
		t.Fatalf("prompt view %q", all)
	}
}
