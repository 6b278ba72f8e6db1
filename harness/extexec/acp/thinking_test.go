package acp

import (
	"context"
	"strings"
	"testing"

	"exo/harness"
	"exo/harness/extexec/attacktest"
	"exo/harness/provider"
)

// The model's reasoning streams live as thinking, apart from the answer text, and
// model.completed keeps it, as exo's own executor does (attacktest.CheckThinking).
func TestThinkingStreamsLive(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{Command: []string{claudeACP(t)}})
	attacktest.CheckThinking(t, f.h, f.s.ID, provider.ReasoningAnthropic, func() {
		res, err := x.Prompt(context.Background(), f.s.ID, "think first", "test")
		okResult(t, res, err)
	})
}

// A secret in the model's reasoning is redacted in model.completed, and the part loses its
// signature (the API could no longer verify it), so no event holds the key's bytes.
func TestSecretInReasoningRedacted(t *testing.T) {
	f := newFixture(t)
	x := f.executor(t, Options{Command: []string{claudeACP(t)}})
	res, err := x.Prompt(context.Background(), f.s.ID, "think secretly", "test")
	okResult(t, res, err)
	var kept []provider.Reasoning
	for _, e := range f.events(t, f.s.ID) {
		noKey(t, "event "+e.Type, e.Data)
		if e.Type == harness.TypeModelCompleted {
			p, _ := harness.Decode(e)
			kept = append(kept, p.(*harness.ModelCompleted).Reasoning...)
		}
	}
	if len(kept) != 1 || !kept[0].Redacted || kept[0].Signature != "" || !strings.Contains(kept[0].Text, "‹secret:anthropic-key›") {
		t.Fatalf("reasoning kept %+v", kept)
	}
}
