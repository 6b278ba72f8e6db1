package acp

import (
	"context"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/extexec/exectest"
)

// claude-agent-acp asks the model for a session title beside the conversation: exo records it as
// model.side (counted in usage and cost), never as an answer of the conversation, so a one-answer
// turn is one step (the title is asked for when the turn has ended) and the title reaches no later prompt.
func TestClaudeAdapterTitleIsASideCall(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{Command: []string{claudeACP(t)}})
	res, err := x.Prompt(context.Background(), f.s.ID, "say hello", "test")
	okResult(t, res, err)
	// The adapter asks for the title when the turn has ended (in the background), so the title's
	// call may come after the turn's result.
	var evs []harness.Event
	var side []*harness.ModelSide
	for deadline := time.Now().Add(2 * time.Minute); len(side) == 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		evs = f.events(t, f.s.ID)
		side = exectest.Payloads[harness.ModelSide](t, evs, harness.TypeModelSide)
	}
	comp := exectest.Payloads[harness.ModelCompleted](t, evs, harness.TypeModelCompleted)
	if len(comp) != 1 || comp[0].Text != "Hello from the script." || res.Steps != 1 || res.Response != "Hello from the script." {
		t.Fatalf("result %+v, model.completed %+v\n%s", res, comp, exectest.Types(evs))
	}
	if len(side) != 1 || side[0].Purpose != harness.SideTitle || side[0].Text != "A title" || side[0].Cost == 0 {
		t.Fatalf("model.side %+v\n%s", side, exectest.Types(evs))
	}
	st, _ := f.h.State(f.s.ID)
	if want := comp[0].Cost + side[0].Cost; st.Steps != 1 || st.ModelCalls != 1 || st.SideCalls != 1 || st.Cost != want {
		t.Fatalf("state %+v, want the conversation's and the title's cost %v", st, want)
	}
	for _, it := range st.Items {
		if strings.Contains(it.Text, "A title") {
			t.Fatalf("the title is in the conversation: %+v", it)
		}
	}
	// The next executor (exo's own) is given the conversation without it.
	v, err := x.Executor().ViewOf(f.s.Branch, "claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range v.Messages {
		if strings.Contains(m.Text, "A title") {
			t.Fatalf("the title is in the prompt view: %+v", v.Messages)
		}
	}
}
