package claude

import (
	"context"
	"strings"
	"testing"
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
}
