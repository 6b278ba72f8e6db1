package executor

import (
	"unicode/utf8"

	"exo/harness"
	"exo/harness/provider"
	"exo/harness/secrets"
)

// live shows a model answer as it streams: answer text and reasoning each go through their
// own redacting stream (a secret split across deltas is still caught) to subscribers.
type live struct {
	t              *turn
	text, thinking *secrets.Stream
	// saver keeps the redacted text as it streams, for a process killed mid-answer (nil: none).
	saver *streamSaver
}

// newLive starts the live view of one model call.
func (t *turn) newLive() *live {
	return &live{t: t, text: t.x.h.RedactStream(), thinking: t.x.h.RedactStream()}
}

// delta shows one streamed piece.
func (l *live) delta(d provider.Delta) {
	switch {
	case d.Text == "":
	case d.Kind == provider.DeltaText:
		text := redactNext(l.text, d.Text)
		l.t.delta(text)
		l.saver.add(text)
	case d.Kind == provider.DeltaReasoning:
		l.t.thinking(redactNext(l.thinking, d.Text))
	}
}

// flush shows what the redacting streams still hold.
func (l *live) flush() {
	if l.thinking != nil {
		l.t.thinking(string(l.thinking.Flush()))
	}
	if l.text != nil {
		l.t.delta(string(l.text.Flush()))
	}
}

// redactNext passes text through a redacting stream, if there is one.
func redactNext(s *secrets.Stream, text string) string {
	if s == nil {
		return text
	}
	return string(s.Next([]byte(text)))
}

// thinking shows a piece of streamed reasoning (already redacted) live.
func (t *turn) thinking(text string) {
	if text != "" {
		t.x.h.Publish(harness.Notice{Session: t.s.ID, Reasoning: text})
	}
}

// redactReasoning redacts secrets from the readable reasoning (harness.RedactReasoning).
func (t *turn) redactReasoning(parts []provider.Reasoning) []provider.Reasoning {
	return t.x.h.RedactReasoning(parts)
}

// maxSkippedRecorded bounds what an event keeps of a passed-over block. The provider keeps
// more, so that the cut, made after redaction, drops any secret its own bound cut in two.
const maxSkippedRecorded = 2 << 10

// redactSkipped redacts secrets from what the passed-over output held, then cuts it short.
func (t *turn) redactSkipped(in []provider.Skipped) []provider.Skipped {
	out := make([]provider.Skipped, 0, len(in))
	for _, s := range in {
		s.Content = cutRunes(t.x.h.Redact(s.Content), maxSkippedRecorded)
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// cutRunes cuts s to at most n bytes on a character boundary, marking the cut with "…".
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
