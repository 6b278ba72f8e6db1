package claude

import (
	"context"
	"testing"

	"exo/harness/extexec/attacktest"
	"exo/harness/provider"
)

// The model's reasoning streams live as thinking, apart from the answer text, and
// model.completed keeps it, as exo's own executor does (attacktest.CheckThinking).
func TestThinkingStreamsLive(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{})
	attacktest.CheckThinking(t, f.h, f.s.ID, provider.ReasoningAnthropic, func() {
		res, err := x.Prompt(context.Background(), f.s.ID, "think first", "test")
		okResult(t, res, err)
	})
}
