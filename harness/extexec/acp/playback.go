package acp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
)

// maxMarks bounds the marks a saved session keeps (12 bytes each in its file): a session with
// more keeps its first ones, and a load's playback past them is recorded as if live.
const maxMarks = 40000

// playback tells a loaded session's history, which the agent plays back as session updates,
// from the turn's own updates. An agent may send its playback after it answered session/load
// (the Gemini CLI does not wait for it), so part of it can reach exo while the next turn runs,
// and no request or answer on the connection marks its end. The marks are: exo notes what the
// agent sent in its live turns, one mark per message's text and per tool call (a hash of the
// text or of the call's id), and saves them with the session; after a load, the updates that
// repeat the marks in their order are the playback and are dropped, wherever they fall (one the
// agent left out of its playback is skipped). The first content update after a load decides: if
// it does not repeat the first mark, the agent plays nothing back, and no update is taken for
// playback (a live answer the same as an earlier one is kept: it cannot come before the turn's
// prompt, nor before a playback sent ahead of it). The playback ends with its last mark, or
// with the first turn after the load.
type playback struct {
	mu sync.Mutex
	// marks are the session's marks: those loaded and those of the live turns since, in order.
	marks []string
	// expect are the loaded marks the playback may still repeat, from next on; armed says the
	// playback began (its first update repeated the first mark), decided that the first
	// content update came.
	expect         []string
	next           int
	armed, decided bool
	// replayedCalls are the tool calls the playback sent (their later updates are its too).
	replayedCalls map[string]bool
	// text and msgID are the live message so far; calls the live tool calls marked.
	text  strings.Builder
	msgID string
	calls map[string]bool
	// dropped counts the updates taken for playback.
	dropped int
}

func newPlayback() *playback {
	return &playback{replayedCalls: map[string]bool{}, calls: map[string]bool{}}
}

// mark is the mark of a message's text ("t") or a tool call's id ("c"): 48 bits of a SHA-256.
func mark(kind byte, s string) string {
	sum := sha256.Sum256([]byte(s))
	return string(kind) + hex.EncodeToString(sum[:6])
}

// load starts a loaded session's playback: the marks its saved session holds.
func (p *playback) load(marks []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.marks = append([]string(nil), marks...)
	p.expect, p.next, p.armed, p.decided = append([]string(nil), marks...), 0, false, len(marks) == 0
}

// droppedCount is how many updates were taken for playback.
func (p *playback) droppedCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dropped
}

// saved returns the marks to save with the session.
func (p *playback) saved() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.marks...)
}

// key is the mark an update would repeat, "" for an update that is none of the agent's
// content (the user's messages, thoughts, modes, plans…); id is a tool call's id.
func key(u sdk.SessionUpdate) (k, id string) {
	switch {
	case u.AgentMessageChunk != nil:
		if b := u.AgentMessageChunk.Content.Text; b != nil && strings.TrimSpace(b.Text) != "" {
			return mark('t', strings.TrimSpace(b.Text)), ""
		}
	case u.ToolCall != nil:
		return mark('c', string(u.ToolCall.ToolCallId)), string(u.ToolCall.ToolCallId)
	case u.ToolCallUpdate != nil:
		return mark('c', string(u.ToolCallUpdate.ToolCallId)), string(u.ToolCallUpdate.ToolCallId)
	}
	return "", ""
}

// replayed reports whether an update is part of a load's playback (and consumes its mark).
func (p *playback) replayed(u sdk.SessionUpdate) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next >= len(p.expect) && len(p.replayedCalls) == 0 {
		return false // no playback (the common case: nothing to hash)
	}
	k, id := key(u)
	if k == "" {
		return false
	}
	if id != "" && p.replayedCalls[id] {
		p.dropped++
		return true // a later update of a call the playback sent
	}
	if p.next >= len(p.expect) {
		return false
	}
	limit := len(p.expect)
	if !p.decided { // the playback begins with the first mark, or there is none
		p.decided, limit = true, 1
	} else if !p.armed {
		return false
	}
	for j := p.next; j < limit; j++ {
		if p.expect[j] == k {
			p.armed, p.next = true, j+1
			if id != "" {
				p.replayedCalls[id] = true
			}
			p.dropped++
			return true
		}
	}
	return false
}

// live notes a live update's content: a message's text is marked when the message ends (a
// tool call, another message id, the turn's end), a tool call when it first comes.
func (p *playback) live(u sdk.SessionUpdate) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case u.AgentMessageChunk != nil:
		b := u.AgentMessageChunk.Content.Text
		if b == nil {
			return
		}
		if id := u.AgentMessageChunk.MessageId; id != nil && *id != p.msgID {
			p.endMessage()
			p.msgID = *id
		}
		p.text.WriteString(b.Text)
	case u.ToolCall != nil:
		p.call(string(u.ToolCall.ToolCallId))
	case u.ToolCallUpdate != nil:
		p.call(string(u.ToolCallUpdate.ToolCallId))
	}
}

// call marks a tool call the first time it is seen (ending the message before it).
func (p *playback) call(id string) {
	p.endMessage()
	if id == "" || p.calls[id] {
		return
	}
	p.calls[id] = true
	p.add(mark('c', id))
}

// endMessage marks the text of the message that ended.
func (p *playback) endMessage() {
	if s := strings.TrimSpace(p.text.String()); s != "" {
		p.add(mark('t', s))
	}
	p.text.Reset()
}

// add appends a mark, up to maxMarks.
func (p *playback) add(m string) {
	if len(p.marks) < maxMarks {
		p.marks = append(p.marks, m)
	}
}

// endTurn ends the turn's message, and the playback of a load (what it did not send by the end
// of the first turn is not coming).
func (p *playback) endTurn() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endMessage()
	p.msgID = ""
	p.expect, p.next, p.decided = nil, 0, true
}
