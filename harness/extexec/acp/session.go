package acp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"exo/harness"
	"exo/harness/provider"
)

// saved is what exo keeps of an agent session to load it in a later process (after the daemon
// restarts, or when the session comes back to this agent from another executor): the ACP
// session, and the part of exo's prompt view its conversation holds (its length and a hash).
type saved struct {
	Agent   string `json:"agent"`
	Session string `json:"session"`
	Len     int    `json:"len"`
	Hash    string `json:"hash"`
	// Marks are what the agent sent in its turns, to tell its playback of the session on a
	// load from the next turn (see playback).
	Marks []string `json:"marks,omitempty"`
}

func (pr *proc) savedPath() string { return filepath.Join(pr.ss.Dirs.Root, savedName) }

// savedName is the saved session's file in the agent's state folder (which the agent may write
// in too: it is read and written through Dirs, which follow no link out).
const savedName = "acp-session.json"

// viewHash identifies a prompt view by what the agent's conversation holds of it.
func viewHash(msgs []provider.Message) string {
	type call struct{ ID, Name, Args string }
	type msg struct {
		Role, Text, CallID string
		Calls              []call
		Err                bool
	}
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, m := range msgs {
		x := msg{Role: string(m.Role), Text: m.Text, CallID: m.ToolCallID, Err: m.IsError}
		for _, c := range m.ToolCalls {
			x.Calls = append(x.Calls, call{c.ID, c.Name, string(c.Arguments)})
		}
		_ = enc.Encode(x)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// savedSession returns the agent session to load and what exo's log holds since it: one this
// agent saved whose conversation is still the start of the session's prompt view (a rewind or
// a compaction before its end makes it stale).
func (pr *proc) savedSession(view []provider.Message) (saved, []provider.Message, bool) {
	if !pr.canLoad {
		return saved{}, nil, false
	}
	b, err := pr.ss.Dirs.ReadFile(savedName, 1<<20)
	if err != nil {
		return saved{}, nil, false
	}
	var sv saved
	if json.Unmarshal(b, &sv) != nil || sv.Agent != pr.a.name || sv.Session == "" || sv.Len > len(view) || viewHash(view[:sv.Len]) != sv.Hash {
		return saved{}, nil, false
	}
	return sv, view[sv.Len:], true
}

// forget removes the saved session: a turn runs, and an agent that dies in it must not be loaded
// from a session that may hold half of it. The file is removed beside the prompt's sending (see
// fileOp).
func (pr *proc) forget() { pr.fileOp(func() { _ = os.Remove(pr.savedPath()) }) }

// fileOp runs a change of the saved session file in the background, after the one before it:
// the file is a cache of what a later process may load (session/load), not part of the turn, so
// the user and the agent do not wait on the disk for it; Stop waits for the last change.
func (pr *proc) fileOp(f func()) {
	pr.mu.Lock()
	prev := pr.fileDone
	done := make(chan struct{})
	pr.fileDone = done
	pr.mu.Unlock()
	go func() {
		defer close(done)
		if prev != nil {
			<-prev
		}
		f()
	}()
}

// fileOpsDone waits until the saved session file's last change is made.
func (pr *proc) fileOpsDone() {
	pr.mu.Lock()
	done := pr.fileDone
	pr.mu.Unlock()
	if done != nil {
		<-done
	}
}

// save notes the agent session after a turn it finished, with the prompt view it now holds: the
// view is taken when the turn ends, and hashed and written in the background (see fileOp; the
// hash reads the whole conversation, 3 ms for 800 KiB).
func (pr *proc) save() {
	if !pr.canLoad || pr.p.Exited() || pr.ss.Log.Flush() != nil {
		return
	}
	v, err := pr.a.x.ViewOf(pr.s.Branch, pr.ss.Log.Spec().ModelID)
	if err != nil {
		return
	}
	msgs := append([]provider.Message(nil), v.Messages...) // the view goes on changing with later events
	agent, session, marks := pr.a.name, string(pr.session), pr.pb.saved()
	pr.fileOp(func() {
		b, _ := json.Marshal(saved{Agent: agent, Session: session, Len: len(msgs), Hash: viewHash(msgs), Marks: marks})
		_ = pr.ss.Dirs.WriteFile(savedName, b)
	})
}

// loadRecord is the agent.session event of a session/load.
func loadRecord(agent, session string, since int, err error) harness.AgentSession {
	rec := harness.AgentSession{Executor: agent, Session: session, Loaded: err == nil, Since: since}
	if err != nil {
		rec.Since, rec.Error = 0, err.Error()
	}
	return rec
}

// historyText renders the conversation so far for an agent that cannot be given it otherwise.
func historyText(msgs []provider.Message) string {
	return framed(msgs, "[The conversation so far in this session, as exo recorded it. Continue from it.]\n",
		"\n[End of the conversation so far.]\n\n")
}

// sinceText renders what exo's log holds after a loaded agent session (turns run by another
// executor meanwhile).
func sinceText(msgs []provider.Message) string {
	return framed(msgs, "[What happened in this session since you last worked in it, as exo recorded it (another executor ran these turns). Continue from it.]\n",
		"\n[End of what happened since.]\n\n")
}

// framed renders messages as text between a head and a tail ("" for none).
func framed(msgs []provider.Message, head, tail string) string {
	if len(msgs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(head)
	for _, m := range msgs {
		switch m.Role {
		case provider.RoleAssistant:
			if m.Text != "" {
				b.WriteString("\nAssistant: " + m.Text + "\n")
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "\nAssistant called %s %s\n", c.Name, c.Arguments)
			}
		case provider.RoleTool:
			fmt.Fprintf(&b, "\nTool result: %s\n", m.Text)
		default:
			b.WriteString("\nUser: " + m.Text + "\n")
		}
	}
	b.WriteString(tail)
	return b.String()
}
