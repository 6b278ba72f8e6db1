package eventlog

import (
	_ "embed"

	"exo/store"
)

// storeVocabulary is what exo's events usually say, given to the store when it opens so that
// it stores them smaller (the store knows no event type or actor of its own). Every exo.db
// refers to it, so it only grows: a name's place never changes, and the dictionary's bytes
// never change (a better one would get a new id, and this one would stay readable). The list
// and the dictionary are, byte for byte, those the store held before it took them from its
// caller, so every database written before reads the same.
var storeVocabulary = store.Vocabulary{Names: storeNames, Dict: storeDict, DictID: storeDictID}

// storeNames are the event types and actors the store names by their place (see
// store.Vocabulary.Names). Append only.
var storeNames = []string{
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

// storeDict is zstd's raw-content dictionary for events: samples of their usual shapes. It is
// only an aid (anything compresses with or without it) but events written with it need it to
// be read.
//
//go:embed event_dict.txt
var storeDict []byte

// storeDictID names storeDict in every stored frame that uses it.
const storeDictID = 0x65786f01 // "exo" 1
