package executor

import (
	"strings"
	"sync"
	"time"

	"exo/harness"
	"exo/harness/eventlog"
	"exo/harness/provider"
)

// saveEvery is how often the text of a streaming answer is saved: kill -9 mid-answer loses at
// most this much of what the user had read. One small write a second costs nothing next to a
// model's stream (the log's appends are durable writes of the same kind).
const saveEvery = time.Second

// streamSaver saves what a streaming answer has sent (redacted) about once a second, from a
// goroutine of its own so that the stream never waits for the disk. If the process dies before
// the answer, its cut or its failure is in the log, the next open records the saved text as
// the answer, cut by the kill (harness.Recover). close waits for a save under way and removes
// the saved text.
type streamSaver struct {
	t      *turn
	seq    uint64 // the model.requested the answer replies to
	prompt int    // the prompt's tokens, estimated

	mu    sync.Mutex
	text  strings.Builder
	dirty bool // text has grown since the last save

	counted int // bytes of text whose tokens are in tokens
	tokens  int
	saved   bool

	stop chan struct{}
	done chan struct{}
}

// newStreamSaver starts saving the answer to the model.requested at seq.
func (t *turn) newStreamSaver(seq uint64, promptTokens int) *streamSaver {
	s := &streamSaver{t: t, seq: seq, prompt: promptTokens, stop: make(chan struct{}), done: make(chan struct{})}
	go s.loop()
	return s
}

// add takes a piece of the answer's text, already redacted.
func (s *streamSaver) add(text string) {
	if s == nil || text == "" {
		return
	}
	s.mu.Lock()
	s.text.WriteString(text)
	s.dirty = true
	s.mu.Unlock()
}

// loop saves the text every second it has grown, until close.
func (s *streamSaver) loop() {
	defer close(s.done)
	tick := time.NewTicker(saveEvery)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
			s.save()
		}
	}
}

// save writes the text so far, with the usage and cost it has cost so far (estimated: the
// tokens of the new text are counted on their own and added).
func (s *streamSaver) save() {
	s.mu.Lock()
	text, dirty := s.text.String(), s.dirty
	s.dirty = false
	s.mu.Unlock()
	if !dirty {
		return
	}
	n, _ := provider.CountTokens(s.t.model.ModelID, text[s.counted:])
	s.tokens, s.counted = s.tokens+n, len(text)
	u := provider.Usage{Input: int64(s.prompt), Output: int64(s.tokens)}
	a := eventlog.StreamedAnswer{Model: s.t.model.Label(), Text: text, Usage: harness.UsageOf(u), Cost: harness.ModelCost(s.t.model, u)}
	// Best effort: a save that fails (a store gone away) leaves the one before, and the
	// answer itself is recorded as ever.
	if s.t.x.h.SaveStreamed(s.t.s.ID, s.t.s.Branch, s.seq, a) == nil {
		s.saved = true
	}
}

// close stops the saving, waits for a save under way, and removes the saved text: the answer,
// its cut or its failure is in the log now.
func (s *streamSaver) close() {
	if s == nil {
		return
	}
	close(s.stop)
	<-s.done
	if s.saved {
		_ = s.t.x.h.DropStreamed(s.t.s.Branch)
	}
}
