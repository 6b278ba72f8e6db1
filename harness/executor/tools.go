package executor

import (
	"context"
	"encoding/json"
	"reflect"
	"time"

	"exo/harness/provider"
)

// toolCtx is what a tool call runs with.
type toolCtx struct {
	x       *Executor
	session string
	branch  string
	callID  string
	ws      string
	// turn holds the options of the turn that made the call (subagents inherit them).
	turn TurnOptions
	// hold is set for an external agent's call: the snapshot after a command is held for the
	// commit of the call's result (see turn.callEvent).
	hold bool
}

// toolOutput is a tool's result before it becomes a tool.completed event.
type toolOutput struct {
	text     string
	isError  bool
	exit     *int
	killed   string
	trunc    bool
	total    int64
	artifact string
	diff     string
	// changed is true when the tool wrote files (the harness snapshots afterwards).
	changed bool
	// waited is how long the call waited for the user's approval (not part of its duration).
	waited time.Duration
}

// tool is one built-in tool: its schema for the model and its implementation.
type tool struct {
	spec provider.Tool
	run  func(ctx context.Context, tc toolCtx, args json.RawMessage) toolOutput
	// args is the struct run decodes its arguments into, from which spec's schema is derived
	// (see newTool).
	args reflect.Type
}

// failed returns an error result the model can act on.
func failed(msg string) toolOutput { return toolOutput{text: msg, isError: true} }

// builtinTools lists exo's tools; each one's JSON schema is derived from the struct its runner
// decodes into (tools_args.go).
func builtinTools() []tool {
	return []tool{
		newTool("bash", "Run a shell command in the session's persistent sandbox shell (cd, variables and functions persist). Output is returned with the exit code. Set background to run it as a task and get a handle at once.", runBash),
		newTool("read_file", "Read a text file of the workspace, with line numbers. offset is the first line (1-based), limit the number of lines.", runReadFile),
		newTool("write_file", "Create or overwrite a file of the workspace with content.", runWriteFile),
		newTool("edit_file", "Replace old_string with new_string in a file. old_string must match exactly once unless replace_all is true.", runEditFile),
		newTool("glob", "List workspace files matching a glob pattern such as **/*.go, under path (default the workspace root). Files ignored by .gitignore are left out unless include_ignored is true.", runGlob),
		newTool("grep", "Search file contents with a regular expression under path, optionally only in files matching glob. Returns file:line: text. Files ignored by .gitignore are left out unless include_ignored is true.", runGrep),
		newTool("list_dir", "List a workspace directory: names, with / after directories, and sizes.", runListDir),
		newTool("task_status", "Show a background task's status (running, exit code) by task_id, or all tasks when task_id is empty.", runTaskStatus),
		newTool("task_output", "Read a background task's output so far by task_id (the tail, up to 64 KiB).", runTaskOutput),
		newTool("task_kill", "Kill a background task by task_id.", runTaskKill),
		todoTool(),
	}
}
