package extexec

import (
	"testing"
	"time"

	"exo/harness"
)

// TestTurnEndWaitsForTheAnswer: an agent can say its turn is over as soon as the answer's last
// event reaches it, before exo's endpoint has seen the upstream stream end (Codex does, now and
// then). The turn's end waits for the conversation's call in flight, so model.completed is
// recorded before executor.result, not after it or never.
func TestTurnEndWaitsForTheAnswer(t *testing.T) {
	t.Parallel()
	h, s, log := turnLog(t)
	log.Expect("hi")
	c := log.begin(callShape{lastText: "hi", userText: "hi", tools: 1}, 1)
	if !c.main {
		t.Fatal("the prompt's call was not placed on the conversation")
	}
	ended := make(chan error, 1)
	go func() {
		log.WaitMain(10 * time.Second)
		ended <- log.Append(harness.MustRecord(harness.TypeExecutorResult, log.Actor(), harness.ExecutorResult{Executor: "agent", Result: "done"}))
	}()
	select { // without the wait the turn's end is recorded at once; with it, never before the answer
	case err := <-ended:
		ended <- err
	case <-time.After(100 * time.Millisecond):
	}
	c.completed(Answer{Text: "done", Stop: "end_turn"})
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
	if err := log.Flush(); err != nil {
		t.Fatal(err)
	}
	evs, err := h.Events(s.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	answer, result := -1, -1
	for i, e := range evs {
		switch e.Type {
		case harness.TypeModelCompleted:
			answer = i
		case harness.TypeExecutorResult:
			result = i
		}
	}
	if answer < 0 || result < 0 || answer > result {
		t.Fatalf("model.completed at %d, executor.result at %d: the answer must come first", answer, result)
	}
}

// TestResultsWaitForTheAnswer: an agent sends the call carrying its tool's result as soon as the
// answer's tool call reaches it, which can be before exo's endpoint has taken that answer in
// (codex-acp did, under load). The call waits for the answer in flight and is placed on the
// conversation, not recorded as a side call with the step lost.
func TestResultsWaitForTheAnswer(t *testing.T) {
	t.Parallel()
	_, _, log := turnLog(t)
	log.Expect("write it")
	first := log.begin(callShape{lastText: "write it", userText: "write it", tools: 1}, 1)
	if !first.main {
		t.Fatal("the prompt's call was not placed on the conversation")
	}
	placed := make(chan *modelCall, 1)
	go func() { placed <- log.begin(callShape{results: []string{"call_1"}, tools: 1}, 3) }()
	select { // without the wait the next call is placed at once, beside the conversation
	case c := <-placed:
		placed <- c
	case <-time.After(100 * time.Millisecond):
	}
	first.completed(Answer{ToolCalls: []harness.ToolCall{{ID: "call_1", Name: "bash", Arguments: []byte(`{"command":"true"}`)}}, Stop: "tool_use"})
	next := <-placed
	if !next.main {
		t.Fatal("the call carrying the tool's result was placed beside the conversation")
	}
	next.completed(Answer{Text: "done", Stop: "end_turn"})
	if err := log.Flush(); err != nil {
		t.Fatal(err)
	}
}

// turnLog opens a harness with an Anthropic model and a session, and a Log of that session in
// a turn.
func turnLog(t *testing.T) (*harness.Harness, *harness.Session, *Log) {
	t.Helper()
	h, err := harness.Open(t.TempDir(), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "m", Provider: "anthropic", ModelID: "claude-sonnet-4-5", BaseURL: "http://127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "s"})
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := h.Model("")
	log := NewLog(h, s.ID, "agent", spec)
	t.Cleanup(func() { log.Close() })
	log.BeginTurn(s.Branch)
	return h, s, log
}
