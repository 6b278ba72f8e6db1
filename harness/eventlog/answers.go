package eventlog

import "exo/harness/api"

// maxAnswerSoFar bounds the text of one streaming answer the broker keeps for late subscribers
// (and as much again of its reasoning): past it, a client that attaches mid-answer sees the
// first 4 MiB and the rest as it streams, and the whole answer once it is recorded.
const maxAnswerSoFar = 4 << 20

// answerSoFar is what an answer streaming on a session has sent: the text and reasoning of its
// delta notices since its model.requested, so that a client attaching mid-answer (a second
// terminal, exo tail) sees it from its start, not from the moment it attached.
type answerSoFar struct {
	text, reasoning []byte
}

// endsAnswer reports whether a committed event starts a new model call or ends the one
// streaming: the answer so far is then in the log, or gone with its turn.
func endsAnswer(typ string) bool {
	switch typ {
	case api.TypeModelRequested, api.TypeModelCompleted, api.TypeModelFailed, api.TypeTurnCancelled,
		api.TypeTurnInterrupted, api.TypeTurnStepLimit, api.TypeExecutorFailed:
		return true
	}
	return false
}

// keep folds a published notice into the session's answer so far; b.mu must be held.
func (b *broker) keep(n *api.Notice) {
	if n.Session == "" {
		return
	}
	for _, e := range n.Events {
		if endsAnswer(e.Type) {
			delete(b.answers, n.Session)
		}
	}
	if n.Turn != nil && !n.Turn.Running {
		delete(b.answers, n.Session)
	}
	if n.Delta == "" && n.Reasoning == "" {
		return
	}
	if b.answers == nil {
		b.answers = map[string]*answerSoFar{}
	}
	a := b.answers[n.Session]
	if a == nil {
		a = &answerSoFar{}
		b.answers[n.Session] = a
	}
	a.text = appendBounded(a.text, n.Delta)
	a.reasoning = appendBounded(a.reasoning, n.Reasoning)
}

// appendBounded appends s to b as far as maxAnswerSoFar allows.
func appendBounded(b []byte, s string) []byte {
	if room := maxAnswerSoFar - len(b); room < len(s) {
		s = s[:max(room, 0)]
	}
	return append(b, s...)
}

// replay queues for a subscriber the answer streaming on session so far, as one notice marked
// SoFar; b.mu must be held, so that every piece published before it is in it and every piece
// after follows it.
func (b *broker) replay(s *subscriber, session string) {
	if a := b.answers[session]; a != nil && !s.noText {
		s.push(api.Notice{Session: session, Reasoning: string(a.reasoning), Delta: string(a.text), SoFar: true})
	}
}

// replayTo queues the answer streaming on session so far for the subscriber reading ch (a
// watch that turned to that session).
func (b *broker) replayTo(ch <-chan api.Notice, session string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.list {
		if (<-chan api.Notice)(s.ch) == ch {
			b.replay(s, session)
			return
		}
	}
}
