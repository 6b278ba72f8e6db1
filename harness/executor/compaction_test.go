package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/provider"
)

// longSession registers the long script with a small context window and writes big.log.
func longSession(t *testing.T) (*harness.Harness, *harness.Session, *Executor) {
	t.Helper()
	h, s, ws := setup(t, "demo.yaml")
	path, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "scripts", "long.yaml"))
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "small", Provider: "scripted", BaseURL: path, ContextWindow: 8000, MaxOutput: 1000}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 0; b.Len() < 4000; i++ {
		fmt.Fprintf(&b, "2026-11-22T03:%02d:%02d worker %d finished job %d in %d ms\n", i/60%60, i%60, i%7, i*13, 100+i)
	}
	os.WriteFile(filepath.Join(ws, "big.log"), []byte(b.String()), 0o644)
	s, err := h.UpdateSession(s.ID, func(s *harness.Session) error {
		s.Settings = map[string]string{"model": "small"}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return h, s, New(h, Options{Headless: true, PruneThreshold: 2500})
}

// compactions lists the compaction.applied events of a session's history.
func compactions(t *testing.T, h *harness.Harness, id string) []*harness.CompactionApplied {
	evs, err := h.Events(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []*harness.CompactionApplied
	for _, e := range evs {
		if e.Type == harness.TypeCompactionApplied {
			p, _ := harness.Decode(e)
			out = append(out, p.(*harness.CompactionApplied))
		}
	}
	return out
}

func TestTwoHundredTurnsStayUnderTheWindow(t *testing.T) {
	h, s, x := longSession(t)
	for i := 0; i < 200; i++ {
		res, err := x.Prompt(context.Background(), s.ID, fmt.Sprintf("prompt %d: read big.log again", i), "test")
		if err != nil || res.Failure != "" || res.Steps != 2 {
			t.Fatalf("prompt %d: %+v %v", i, res, err)
		}
	}
	evs, _ := h.Events(s.ID, 0, 0)
	limit := 8000 - 1000
	prompts, results, maxPrompt := 0, 0, 0
	for _, e := range evs {
		p, _ := harness.Decode(e)
		switch p := p.(type) {
		case *harness.InvocationReceived:
			prompts++
		case *harness.ToolCompleted:
			if len(p.Output) < 4000 {
				t.Fatalf("a tool result in the log lost its output: %d bytes", len(p.Output))
			}
			results++
		case *harness.ModelRequested:
			maxPrompt = max(maxPrompt, p.PromptTokens)
		}
	}
	if prompts != 200 || results != 200 {
		t.Fatalf("log holds %d prompts and %d results", prompts, results)
	}
	if maxPrompt > limit {
		t.Fatalf("a prompt of %d tokens went past the window's limit %d", maxPrompt, limit)
	}
	kinds := map[string]int{}
	for _, c := range compactions(t, h, s.ID) {
		kinds[c.Kind]++
	}
	if kinds[CompactPrune] == 0 || kinds[CompactSummarize] == 0 {
		t.Fatalf("compactions %v", kinds)
	}
	t.Logf("200 prompts, %d events, largest prompt view %d tokens (limit %d), compactions %v", len(evs), maxPrompt, limit, kinds)

	// The view rebuilt from the log by another executor is the same as the incremental one.
	v1, _ := x.ViewOf(s.Branch, "small")
	v2, _ := New(h, Options{}).ViewOf(s.Branch, "small")
	if !reflect.DeepEqual(v1.Messages, v2.Messages) || v1.Tokens != v2.Tokens {
		t.Fatalf("rebuilt view differs: %d/%d messages, %d/%d tokens", len(v1.Messages), len(v2.Messages), v1.Tokens, v2.Tokens)
	}
	if !strings.Contains(v1.Messages[0].Text, "[summary of the conversation so far") || !v1.Messages[0].CacheBreakpoint {
		t.Fatalf("first message is not the summary: %.200q", v1.Messages[0].Text)
	}
}

func TestRewindAndForkBeforeACompactionGiveTheFullView(t *testing.T) {
	h, s, x := longSession(t)
	for i := 0; i < 12; i++ {
		if _, err := x.Prompt(context.Background(), s.ID, fmt.Sprintf("prompt %d", i), "test"); err != nil {
			t.Fatal(err)
		}
	}
	evs, _ := h.Events(s.ID, 0, 0)
	var at uint64
	for _, e := range evs {
		if e.Type == harness.TypeCompactionApplied {
			at = e.Seq
			break
		}
	}
	if at == 0 {
		t.Fatal("no compaction in 12 prompts")
	}
	before, _ := x.ViewOf(s.Branch, "small")
	if !hasPlaceholder(before.Messages) {
		t.Fatal("the compacted view has no placeholder")
	}
	// What the view was just before the compaction, folded from the log up to it.
	want := newView("want", "small")
	for _, e := range evs[:at-1] {
		want.Apply(e)
	}
	f, err := h.Fork(s.ID, at-1, harness.ForkOptions{Name: "before-compaction"})
	if err != nil {
		t.Fatal(err)
	}
	fv, _ := x.ViewOf(f.Branch, "small")
	r, err := h.Rewind(s.ID, at-1)
	if err != nil {
		t.Fatal(err)
	}
	rv, _ := x.ViewOf(r.Branch, "small")
	for name, v := range map[string]*View{"fork": fv, "rewind": rv} {
		// The fork and the rewind add a note that the files were restored; the rest is the same.
		if hasPlaceholder(v.Messages) || len(v.Messages) < len(want.Messages) || !reflect.DeepEqual(v.Messages[:len(want.Messages)], want.Messages) {
			t.Fatalf("%s: the view after going back before the compaction is not the full one (%d vs %d messages)", name, len(v.Messages), len(want.Messages))
		}
	}
	if _, err := x.Prompt(context.Background(), s.ID, "after the rewind", "test"); err != nil {
		t.Fatal(err)
	}
}

func hasPlaceholder(msgs []provider.Message) bool {
	for _, m := range msgs {
		if strings.HasPrefix(m.Text, "[pruned from the prompt") || strings.HasPrefix(m.Text, "[summary of the conversation") {
			return true
		}
	}
	return false
}

func TestCompactByHand(t *testing.T) {
	h, s, x := longSession(t)
	x.opts.NoCompaction = true
	if _, err := x.Compact(context.Background(), s.ID); err != ErrNothingToCompact {
		t.Fatalf("compact of an empty session: %v", err)
	}
	for i := 0; i < 3; i++ {
		if _, err := x.Prompt(context.Background(), s.ID, fmt.Sprintf("prompt %d", i), "test"); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := x.Compact(context.Background(), s.ID)
	if err != nil || !rep.Pruned || !rep.Summarized || rep.TokensAfter >= rep.TokensBefore {
		t.Fatalf("%+v %v", rep, err)
	}
	if cs := compactions(t, h, s.ID); len(cs) != 2 || cs[1].Summary == "" {
		t.Fatalf("compactions %+v", cs)
	}
	// The summarisation call counts against the budgets.
	evs, _ := h.Events(s.ID, 0, 0)
	last, _ := harness.Decode(evs[len(evs)-1])
	if c, ok := last.(*harness.CompactionCost); !ok || c.Usage.Input == 0 {
		t.Fatalf("no compaction.cost after the summary: %+v", last)
	}
}

func TestALongTurnIsPrunedInsideTheTurn(t *testing.T) {
	h, s, _ := longSession(t)
	path, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "scripts", "longturn.yaml"))
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "turn", Provider: "scripted", BaseURL: path, ContextWindow: 8000, MaxOutput: 1000}); err != nil {
		t.Fatal(err)
	}
	h.UpdateSession(s.ID, func(s *harness.Session) error { s.Settings["model"] = "turn"; return nil })
	x := New(h, Options{Headless: true, MaxSteps: 60})
	res, err := x.Prompt(context.Background(), s.ID, "read big.log forty times", "test")
	if err != nil || res.Failure != "" || res.Steps != 41 {
		t.Fatalf("%+v %v", res, err)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	maxPrompt := 0
	for _, e := range evs {
		if p, _ := harness.Decode(e); p != nil {
			if r, ok := p.(*harness.ModelRequested); ok {
				maxPrompt = max(maxPrompt, r.PromptTokens)
			}
		}
	}
	if maxPrompt > 7000 || len(compactions(t, h, s.ID)) == 0 {
		t.Fatalf("largest prompt %d tokens, %d compactions", maxPrompt, len(compactions(t, h, s.ID)))
	}
}

// TestCompactNeverGrowsThePrompt: when the model's summary is no smaller than the history it
// would replace (short prompts, a long answer), a compaction by hand keeps the history, says
// why, and still records the summary call's cost.
func TestCompactNeverGrowsThePrompt(t *testing.T) {
	h, s, _ := setup(t, "demo.yaml")
	script := filepath.Join(t.TempDir(), "wordy.yaml")
	answer := strings.Repeat("Everything went as planned and nothing else needs doing. ", 40)
	os.WriteFile(script, []byte("name: wordy\nturns:\n  - text: \""+answer+"\"\n"), 0o644)
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "wordy", Provider: "scripted", BaseURL: script}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.UpdateSession(s.ID, func(s *harness.Session) error {
		s.Settings = map[string]string{"model": "wordy"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	x := New(h, Options{Headless: true, NoCompaction: true})
	for i := 0; i < 3; i++ {
		if _, err := x.Prompt(context.Background(), s.ID, fmt.Sprintf("p%d", i), "test"); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := x.Compact(context.Background(), s.ID)
	if !errors.Is(err, ErrNothingToCompact) || !strings.Contains(err.Error(), "not smaller") || rep.Summarized {
		t.Fatalf("compact: %+v %v", rep, err)
	}
	if cs := compactions(t, h, s.ID); len(cs) != 0 {
		t.Fatalf("a summary bigger than the history was applied: %+v", cs)
	}
	evs, _ := h.Events(s.ID, 0, 0)
	if last, _ := harness.Decode(evs[len(evs)-1]); last == nil {
		t.Fatal("no last event")
	} else if _, ok := last.(*harness.CompactionCost); !ok {
		t.Fatalf("the summary call's cost is not recorded: %T", last)
	}
}
