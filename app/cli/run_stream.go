package cli

import (
	"errors"
	"fmt"

	"exo/harness/api"
)

// The objects of `exo run --output-format stream-json`, one JSON line each, in this order: an
// init, then while the turn runs every committed event of the session (an "event" line each)
// and the streamed text ("text_delta", "reasoning_delta"), and last the "result" (the object
// of --output-format json with its type).
type (
	// streamInit opens the stream: which session and turn.
	streamInitLine struct {
		Type      string `json:"type"` // init
		SessionID string `json:"session_id"`
		Session   string `json:"session"`
		TurnID    string `json:"turn_id"`
		Branch    string `json:"branch"`
		// Seq is the branch's head before the prompt: the turn's events follow it.
		Seq       uint64 `json:"seq"`
		Workspace string `json:"workspace,omitempty"`
	}
	// streamEvent is one committed event, as exo log --json prints it.
	streamEvent struct {
		Type  string    `json:"type"` // event
		Event api.Event `json:"event"`
	}
	// streamDelta is streamed answer text (text_delta) or reasoning (reasoning_delta).
	streamDelta struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	// streamNotice says something about the stream itself (lagged: part of it was missed).
	streamNotice struct {
		Type    string `json:"type"` // lagged
		Message string `json:"message"`
	}
	// streamProgress is long work going on (the first snapshot of a big workspace).
	streamProgress struct {
		Type string `json:"type"` // progress
		*api.Progress
	}
	// streamResult is the turn's outcome.
	streamResult struct {
		Type string `json:"type"` // result
		runOutput
	}
)

// streamInit prints the init line.
func (e *env) streamInit(s *api.Session, started api.TurnStarted) {
	writeJSONLine(e.stdout, streamInitLine{Type: "init", SessionID: s.ID, Session: s.Name, TurnID: started.ID,
		Branch: started.Branch, Seq: started.Seq, Workspace: s.Workspace})
}

// followStream prints the turn as JSON lines until its end arrives on the watch.
func (e *env) followStream(w *api.Watcher, started api.TurnStarted) (api.TurnResult, error) {
	warned := false
	for n := range w.C {
		if n.Lagged && !warned {
			warned = true
			writeJSONLine(e.stdout, streamNotice{Type: "lagged", Message: fmt.Sprintf(
				"this reader fell too far behind and missed part of the stream; every event is in the log: exo log %s --json", started.Session)})
		}
		if p := n.Progress; p != nil {
			writeJSONLine(e.stdout, streamProgress{Type: "progress", Progress: p})
		}
		if n.Reasoning != "" {
			writeJSONLine(e.stdout, streamDelta{Type: "reasoning_delta", Text: n.Reasoning})
		}
		if n.Delta != "" {
			writeJSONLine(e.stdout, streamDelta{Type: "text_delta", Text: n.Delta})
		}
		for _, ev := range n.Events {
			writeJSONLine(e.stdout, streamEvent{Type: "event", Event: ev})
		}
		if t := n.Turn; t != nil && t.ID == started.ID && !t.Running {
			var res api.TurnResult
			if t.Result != nil {
				res = *t.Result
			}
			if t.Error != "" {
				return res, &api.RemoteError{Code: t.ErrorCode, Message: t.Error}
			}
			return res, nil
		}
	}
	err := w.Err()
	if err == nil {
		err = errors.New("the watch ended")
	}
	return api.TurnResult{}, fmt.Errorf("lost the exo daemon during the turn (%v); the turn's events are in the log: exo log SESSION, exo daemon logs", err)
}
