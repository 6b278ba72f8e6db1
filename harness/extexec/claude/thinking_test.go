package claude

import (
	"context"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/provider"
)

// The model's reasoning streams live as thinking (notices with Reasoning), apart from the answer
// text, as exo's own executor streams it.
func TestThinkingStreamsLive(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{})
	ch, stop := f.h.Subscribe(1024)
	defer stop()
	var thinking, answer strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := range ch {
			if n.Session == f.s.ID {
				thinking.WriteString(n.Reasoning)
				answer.WriteString(n.Delta)
			}
		}
	}()
	res, err := x.Prompt(context.Background(), f.s.ID, "think first", "test")
	okResult(t, res, err)
	stop()
	<-done
	if thinking.String() != "Weighing the options before answering." || strings.Contains(answer.String(), "Weighing") ||
		!strings.Contains(answer.String(), "Thought it over.") {
		t.Fatalf("thinking %q, answer %q", thinking.String(), answer.String())
	}
	// model.completed keeps the reasoning, as exo's own executor records it: exo log and the app
	// show it after the fact.
	var kept []provider.Reasoning
	for _, c := range payloads[harness.ModelCompleted](t, f.events(t, f.s.ID), harness.TypeModelCompleted) {
		kept = append(kept, c.Reasoning...)
	}
	if len(kept) != 1 || kept[0].Format != provider.ReasoningAnthropic || provider.ReasoningText(kept) != "Weighing the options before answering." || kept[0].Origin == "" {
		t.Fatalf("model.completed reasoning %+v", kept)
	}
	st, _ := f.h.State(f.s.ID)
	found := false
	for _, it := range st.Items {
		found = found || it.Kind == harness.ItemThinking && it.Text == "Weighing the options before answering."
	}
	if !found {
		t.Fatalf("no thinking item in the conversation: %+v", st.Items)
	}
}
