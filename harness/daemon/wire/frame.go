package wire

import (
	"exo/harness/api"
)

// Frame is one line of a stream (watch, tail, exec).
type Frame = api.StreamFrame

// NoticeFrame encodes a notice.
func NoticeFrame(n api.Notice) Frame {
	return Frame{Session: n.Session, Events: n.Events, Delta: n.Delta, Reasoning: n.Reasoning, Output: string(n.Output), Lagged: n.Lagged,
		Turn: n.Turn, Clients: n.Clients, HasClients: n.Clients != nil, Peer: n.Peer, Progress: n.Progress,
		Governance: n.Governance, Updated: n.Updated, Store: n.Store}
}

// Notice decodes a frame's notice.
func Notice(f Frame) api.Notice {
	n := api.Notice{Session: f.Session, Events: f.Events, Delta: f.Delta, Reasoning: f.Reasoning, Lagged: f.Lagged, Turn: f.Turn, Peer: f.Peer, Progress: f.Progress,
		Governance: f.Governance, Updated: f.Updated, Store: f.Store}
	if f.Output != "" {
		n.Output = []byte(f.Output)
	}
	if f.HasClients {
		n.Clients = f.Clients
		if n.Clients == nil {
			n.Clients = map[string]int{}
		}
	}
	return n
}
