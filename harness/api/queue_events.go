package api

import (
	"slices"
)

// Follow-ups while a turn runs. A prompt sent while a turn runs on the session is not refused:
// it is recorded as prompt.queued and shown as queued in every app and in exo tail. When the
// turn ends, the oldest queued prompt is taken (prompt.unqueued, reason sent) and the next turn
// starts with it, recorded as usual (invocation.received). A queued prompt the user takes back
// is prompt.unqueued with reason cancelled. A prompt queued to steer (Steer set) is taken by the
// running turn at its next step, after the tool results it waits for, as prompt.steered: the
// model sees it as the user's message at that point. A turn that ends before another step sends
// it as the next turn's prompt, as any queued prompt.
const (
	TypePromptQueued   = "prompt.queued"
	TypePromptUnqueued = "prompt.unqueued"
	TypePromptSteered  = "prompt.steered"
)

// Busy modes of a TurnRequest: what a prompt does when a turn already runs on the session.
const (
	// BusyRefuse refuses the prompt with ErrBusy (the default, "").
	BusyRefuse = ""
	// BusyQueue queues the prompt for when the turn ends.
	BusyQueue = "queue"
	// BusySteer queues the prompt for the running turn's next step.
	BusySteer = "steer"
)

// Reasons a queued prompt left the queue (PromptUnqueued.Reason).
const (
	// UnqueueSent: the turn it was waiting for ended and the next turn starts with it.
	UnqueueSent = "sent"
	// UnqueueCancelled: the user took it back (to edit it, or not to send it).
	UnqueueCancelled = "cancelled"
	// UnqueueDropped: the turn it waited for was cancelled by the user, or cut off by exo
	// stopping, so it was not sent; its text is in the notice and in its prompt.queued.
	UnqueueDropped = "dropped"
)

// PromptQueued records a prompt sent while a turn ran: it waits for the turn to end (or, with
// Steer, for the turn's next step).
type PromptQueued struct {
	// ID names the queued prompt; it is also the id of the turn it starts.
	ID     string `json:"id"`
	Text   string `json:"text"`
	Source string `json:"source,omitempty"`
	// Steer asks the running turn to take it at its next step.
	Steer bool `json:"steer,omitempty"`
}

// PromptUnqueued records a queued prompt leaving the queue without steering: sent as the next
// turn's prompt, taken back by the user, or dropped with a cancelled turn.
type PromptUnqueued struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// PromptSteered records a queued prompt taken by the running turn at a step: a user message
// the model sees from that point on.
type PromptSteered struct {
	ID     string `json:"id,omitempty"`
	Text   string `json:"text"`
	Source string `json:"source,omitempty"`
}

// QueuedPrompt is a prompt waiting in a session's queue (SessionState.Queued).
type QueuedPrompt struct {
	ID     string `json:"id"`
	Seq    uint64 `json:"seq"`
	Text   string `json:"text"`
	Source string `json:"source,omitempty"`
	Steer  bool   `json:"steer,omitempty"`
}

// UnqueueRequest takes a queued prompt back.
type UnqueueRequest struct {
	Session string `json:"-"`
	Prompt  string `json:"-"`
}

// QueuedText returns the text of a queued prompt, or "" when it is not queued.
func (s *SessionState) QueuedText(id string) string {
	for _, q := range s.Queued {
		if q.ID == id {
			return q.Text
		}
	}
	return ""
}

// unqueue forgets the queued prompt id.
func (s *SessionState) unqueue(id string) {
	s.Queued = slices.DeleteFunc(s.Queued, func(q QueuedPrompt) bool { return q.ID == id })
	if len(s.Queued) == 0 {
		s.Queued = nil
	}
}

func init() {
	RegisterType(TypePromptQueued, typed(FamilyUser, func(p *PromptQueued) string {
		if p.Steer {
			return "queued to steer: " + oneLine(p.Text)
		}
		return "queued: " + oneLine(p.Text)
	}))
	RegisterType(TypePromptUnqueued, typed(FamilyUser, func(p *PromptUnqueued) string {
		return "unqueued (" + p.Reason + ") " + p.ID
	}))
	RegisterType(TypePromptSteered, typed(FamilyUser, func(p *PromptSteered) string { return "steered: " + oneLine(p.Text) }))
	stateAppliers[TypePromptQueued] = func(s *SessionState, e Event, p any) {
		q := p.(*PromptQueued)
		s.Queued = append(s.Queued, QueuedPrompt{ID: q.ID, Seq: e.Seq, Text: q.Text, Source: q.Source, Steer: q.Steer})
	}
	stateAppliers[TypePromptUnqueued] = func(s *SessionState, e Event, p any) {
		u := p.(*PromptUnqueued)
		text := s.QueuedText(u.ID)
		s.unqueue(u.ID)
		switch u.Reason {
		case UnqueueCancelled:
			s.addItem(Item{Seq: e.Seq, Kind: ItemNotice, Text: "queued prompt taken back: " + oneLine(text)})
		case UnqueueDropped:
			s.addItem(Item{Seq: e.Seq, Kind: ItemNotice, Text: "queued prompt not sent (its turn was cancelled or cut off): " + oneLine(text)})
		}
	}
	stateAppliers[TypePromptSteered] = func(s *SessionState, e Event, p any) {
		st := p.(*PromptSteered)
		s.unqueue(st.ID)
		s.LastPromptAt = e.Time
		s.addItem(Item{Seq: e.Seq, Kind: ItemUser, Text: st.Text, Steered: true})
	}
}
