package store

// eventNames are the type and actor strings most events carry. An event stored as it is
// (encoding version 3) names them by their place in this list instead of spelling them out: a
// long session has tens of thousands of small events (a step's start, a model request), and the
// two strings were a third of each. The list is append-only: an entry's place never changes,
// since stored events refer to it; a string that is not here is spelled out.
var eventNames = []string{
	// types
	"session.created", "invocation.received", "step.started", "model.requested", "model.completed",
	"model.failed", "tool.started", "tool.completed", "task.started", "task.completed",
	"artifact.created", "workspace.snapshot", "secret.denied", "policy.violation",
	"approval.requested", "approval.resolved", "compaction.applied", "session.forked",
	"session.rewound", "session.suspended", "session.resumed", "session.finished",
	"handoff.recorded", "turn.cancelled", "workspace.restored", "budget.warning", "budget.exceeded",
	"subagent.spawned", "subagent.started", "subagent.completed", "executor.selected",
	"executor.result", "executor.failed", "mcp.server", "hook.run",
	// actors
	"user", "harness", "executor:default", "tool:bash", "tool:read_file", "tool:write_file",
	"tool:edit_file", "tool:glob", "tool:grep", "tool:list_dir", "tool:task_status",
	"tool:task_output", "tool:task_kill", "tool:spawn_agent", "tool:wait_agent",
	"executor:claude-code", "executor:codex", "executor:acp",
}

// eventNameIndex maps each of eventNames to its place plus one (0 means spelled out).
var eventNameIndex = func() map[string]uint64 {
	m := make(map[string]uint64, len(eventNames))
	for i, n := range eventNames {
		m[n] = uint64(i + 1)
	}
	return m
}()

// appendName appends a name as its place in eventNames, or as 0 and the string.
func appendName(buf []byte, s string) []byte {
	if i, ok := eventNameIndex[s]; ok {
		return appendUvarint(buf, i)
	}
	return appendString(appendUvarint(buf, 0), s)
}

// name reads what appendName wrote.
func (r *reader) name() string {
	i := r.uvarint()
	switch {
	case r.err != nil:
		return ""
	case i == 0:
		return r.str()
	case i > uint64(len(eventNames)):
		r.err = errUnknownName
		return ""
	}
	return eventNames[i-1]
}
