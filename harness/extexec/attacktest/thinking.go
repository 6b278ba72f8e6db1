package attacktest

import (
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/provider"
)

// ThinkingText is the reasoning the scripted servers send before their answer to "think first".
const ThinkingText = "Weighing the options before answering."

// CheckThinking runs prompt (one turn of session id that answers "think first") and checks
// what exo's own executor does with a model's reasoning: it streams live as thinking (notices
// with Reasoning), apart from the answer text; model.completed keeps it as one part of format
// (as `exo log` and the app show it after the fact); the conversation has a thinking item.
func CheckThinking(t testing.TB, h *harness.Harness, id, format string, prompt func()) {
	t.Helper()
	ch, stop := h.Subscribe(1024)
	defer stop()
	var thinking, answer strings.Builder
	done, answered := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		seen := false
		for n := range ch {
			if n.Session != id {
				continue
			}
			thinking.WriteString(n.Reasoning)
			answer.WriteString(n.Delta)
			for _, e := range n.Events {
				if e.Type == harness.TypeModelCompleted && !seen {
					seen = true // what streamed before the answer's record has been delivered
					close(answered)
				}
			}
		}
	}()
	prompt()
	// The turn has returned, but its notices may still be on their way to this subscriber:
	// read until the answer's record arrives (it follows its text) before stopping.
	select {
	case <-answered:
	case <-time.After(30 * time.Second):
	}
	stop()
	<-done
	// An agent may stream a separator before its reasoning (codex-acp sends "\n\n").
	if strings.TrimSpace(thinking.String()) != ThinkingText || strings.Contains(answer.String(), "Weighing") ||
		!strings.Contains(answer.String(), "Thought it over.") {
		t.Fatalf("thinking %q, answer %q", thinking.String(), answer.String())
	}
	evs, err := h.Events(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kept []provider.Reasoning
	for _, e := range evs {
		if e.Type != harness.TypeModelCompleted {
			continue
		}
		p, err := harness.Decode(e)
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, p.(*harness.ModelCompleted).Reasoning...)
	}
	if len(kept) != 1 || kept[0].Format != format || strings.TrimSpace(provider.ReasoningText(kept)) != ThinkingText || kept[0].Origin == "" {
		t.Fatalf("model.completed reasoning %+v", kept)
	}
	st, _ := h.State(id)
	found := false
	for _, it := range st.Items {
		found = found || it.Kind == harness.ItemThinking && strings.TrimSpace(it.Text) == ThinkingText
	}
	if !found {
		t.Fatalf("no thinking item in the conversation: %+v", st.Items)
	}
}
