package acp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/extexec/exectest"
	"exo/harness/provider"
)

// geminiThoughts is a streamed answer whose thought comes in pieces, the sealed key cut across
// two of them, before the answer text.
func geminiThoughts(pieces []string, text string) string {
	var b strings.Builder
	for _, p := range pieces {
		b.WriteString(`data: {"candidates": [{"content": {"parts": [{"text": ` + quote(p) + `,"thought": true}],"role": "model"},"index": 0}],"modelVersion": "gemini-2.5-flash","responseId": "dGhvdWdodA"}` + "\r\n\r\n")
	}
	b.WriteString(`data: {"candidates": [{"content": {"parts": [{"text": ` + quote(text) + `}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 900,"candidatesTokenCount": 4,"totalTokenCount": 950,"thoughtsTokenCount": 46},"modelVersion": "gemini-2.5-flash","responseId": "dGhvdWdodA"}` + "\r\n\r\n")
	return b.String()
}

// quote is s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The Gemini CLI hands each piece of a thought on as a thought of its own, titled ("****\n"
// before it, the piece trimmed): exo shows the thought the model sent, as its endpoint decodes
// it, live and once (not the CLI's copy besides), with the sealed key the model quoted across
// two pieces redacted in the stream and in model.completed, which keeps the thought once.
func TestGeminiCLIShowsTheModelsThought(t *testing.T) {
	pieces := []string{"**Checking the key**\n\nThe key is " + geminiSealedKey[:12], geminiSealedKey[12:] + "; keep it", " quiet."}
	f, _ := geminiFixture(t, func([]byte) string { return geminiThoughts(pieces, "Not telling.") })
	x := f.executor(t, Options{Command: []string{geminiCLI(t)}})
	ch, stop := f.h.Subscribe(1024)
	defer stop()
	var thinking, answer strings.Builder
	done, answered := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		seen := false
		for n := range ch {
			if n.Session != f.s.ID {
				continue
			}
			thinking.WriteString(n.Reasoning)
			answer.WriteString(n.Delta)
			for _, e := range n.Events {
				if e.Type == harness.TypeModelCompleted && !seen {
					seen = true
					close(answered)
				}
			}
		}
	}()
	res, err := x.Prompt(context.Background(), f.s.ID, "think secretly", "test")
	okResult(t, res, err)
	select {
	case <-answered:
	case <-time.After(30 * time.Second):
	}
	stop()
	<-done
	want := "**Checking the key**\n\nThe key is ‹secret:gemini-key›; keep it quiet."
	if thinking.String() != want || !strings.Contains(answer.String(), "Not telling.") || strings.Contains(answer.String(), "key") {
		t.Fatalf("thinking %q (want %q), answer %q", thinking.String(), want, answer.String())
	}
	evs := f.events(t, f.s.ID)
	exectest.NoSecretIn(t, map[string]string{"the sealed key": geminiSealedKey}, exectest.Traces{Events: evs, Texts: []string{thinking.String(), res.Response}})
	var kept []harness.Reasoning
	for _, c := range exectest.Payloads[harness.ModelCompleted](t, evs, harness.TypeModelCompleted) {
		kept = append(kept, c.Reasoning...)
	}
	if len(kept) != 1 || kept[0].Format != provider.ReasoningGemini || !kept[0].Redacted || provider.ReasoningText(kept) != want {
		t.Fatalf("model.completed reasoning %+v", kept)
	}
}
