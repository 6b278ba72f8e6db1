package conformance

import (
	"testing"

	"exo/harness"
	"exo/harness/extexec/attacktest"
)

// Reasoning: the model's reasoning streams live as thinking, apart from the answer text, and
// model.completed keeps it in the adapter's format, as a thinking item of the conversation
// (attacktest.CheckThinking).
func Reasoning(t *testing.T, s *Suite) {
	f := s.Fixture(t, "", harness.Options{})
	x := f.Open(t, Options{})
	attacktest.CheckThinking(t, f.H, f.Sess.ID, s.A.ReasoningFormat, func() {
		f.prompt(t, x, f.Sess.ID, promptThink)
	})
}
